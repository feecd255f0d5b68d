// The application's build: base /app/ (where the service serves it), output into the Go
// package that embeds it (internal/webapp), stale chunks removed. No framework plugin: the JSX
// transform is the bundler's own, told to use Preact's runtime. See
// docs/decisions/application-framework.md.
import { defineConfig } from "vitest/config";

export default defineConfig({
  base: "/app/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "../../internal/webapp/dist",
    emptyOutDir: true,
    // One style sheet and scripts from 'self' only: the CSP allows nothing inline.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: "es2022",
  },
  test: {
    environment: "happy-dom",
  },
});
