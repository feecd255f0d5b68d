// Templates' preview images: POST /templates/{id}/preview rendered as PNG, fetched with the
// session's token (an <img src> could not send it) and shown from a blob: address. Rendering
// costs the service, and each request counts toward the rate limit: a preview is asked for
// once per template version and page load, two at a time, and only once its card is in view.
import { api } from "../../api/client";

const cache = new Map<string, Promise<string | null>>();
const waiting: (() => void)[] = [];
let running = 0;
const atOnce = 2;

function turn(): Promise<void> {
  if (running < atOnce) {
    running++;
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}

function done() {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

async function render(id: string): Promise<string | null> {
  await turn();
  try {
    const { data, response } = await api.POST("/templates/{id}/preview", {
      params: { path: { id } },
      headers: { Accept: "image/png" },
      parseAs: "blob",
    });
    if (!response.ok || !(data instanceof Blob) || !data.type.startsWith("image/")) return null;
    return URL.createObjectURL(data);
  } catch {
    return null;
  } finally {
    done();
  }
}

/** preview answers a blob: address of the template's preview, or null when there is none. */
export function preview(id: string, version: string): Promise<string | null> {
  const key = `${id}@${version}`;
  let p = cache.get(key);
  if (!p) {
    p = render(id);
    cache.set(key, p);
    // A failure (the rate limit, say) is asked again next time.
    void p.then((url) => url === null && cache.delete(key));
  }
  return p;
}
