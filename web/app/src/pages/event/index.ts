// The page of one event: its attendees and certificates, under /app/events/:id.
import type { PageRoute } from "../../routes";
import { EventPage } from "./EventPage";

export const eventPageRoutes: PageRoute[] = [{ path: "/app/events/:id", component: EventPage }];
