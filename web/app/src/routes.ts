// The account's pages beyond home: each part of the application lists its own (src/pages/*/index.ts).
import type { ComponentType } from "preact";
import { eventRoutes } from "./pages/events/index";
import { keyRoutes } from "./pages/keys/index";

export interface PageRoute {
  path: string;
  component: ComponentType;
}

export const routes: PageRoute[] = [...eventRoutes, ...keyRoutes];
