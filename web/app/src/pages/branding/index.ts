// The branding part of the application: its page at /app/branding.
import type { PageRoute } from "../../routes";
import { Branding } from "./Branding";

export const brandingRoutes: PageRoute[] = [{ path: "/app/branding", component: Branding }];
