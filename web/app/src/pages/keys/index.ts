// The API keys part of the application: its pages under /app/api-keys.
import type { PageRoute } from "../../routes";
import { ApiKeys } from "./ApiKeys";

export const keyRoutes: PageRoute[] = [{ path: "/app/api-keys", component: ApiKeys }];
