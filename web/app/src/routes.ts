// The account's pages beyond home: each part of the application lists its own (src/pages/*/index.ts).
import type { ComponentType } from "preact";
import { brandingRoutes } from "./pages/branding/index";
import { eventPageRoutes } from "./pages/event/index";
import { eventRoutes } from "./pages/events/index";
import { keyRoutes } from "./pages/keys/index";

export interface PageRoute {
  path: string;
  component: ComponentType;
}

// The events' routes first: /app/events/new is theirs, before the event page's /app/events/:id.
export const routes: PageRoute[] = [...eventRoutes, ...eventPageRoutes, ...keyRoutes, ...brandingRoutes];
