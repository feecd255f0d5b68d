// The API keys part of the application: its pages under /app/api-keys.
import type { PageRoute } from "../../routes";

export const keyRoutes: PageRoute[] = [];
