// The events part of the application: its pages under /app/events.
import type { PageRoute } from "../../routes";

export const eventRoutes: PageRoute[] = [];
