// The events part of the application: its pages under /app/events.
import type { PageRoute } from "../../routes";
import { EventForm } from "./EventForm";
import { EventList } from "./EventList";

export const eventRoutes: PageRoute[] = [
  { path: "/app/events", component: EventList },
  { path: "/app/events/new", component: EventForm },
  { path: "/app/events/:id/edit", component: EventForm },
];
