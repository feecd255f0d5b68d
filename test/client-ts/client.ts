// A consumer's program against a client generated from openapi/v1.json (openapi-typescript types,
// openapi-fetch calls). It is compiled, never run, by `make client-ts` (part of `make check`) with
// `tsc --strict`: it fails when the document stops generating types a client can use, and the
// `@ts-expect-error` lines fail when the types stop catching mistakes (degrade to `any`).
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type Certificate = components["schemas"]["Certificate"];
type Event = components["schemas"]["Event"];
type ErrorCode = components["schemas"]["ErrorCode"];

export function connect(siteUrl: string, apiKey: string) {
  return createClient<paths>({
    baseUrl: `${siteUrl}/api/v1`,
    headers: { Authorization: `Bearer ${apiKey}` },
  });
}

type Client = ReturnType<typeof connect>;

/** Issues a certificate once, however often it is retried with the same key. */
export async function issueOnce(
  api: Client,
  idempotencyKey: string,
  ids: { templateId: string; eventId: string; attendeeId: string },
): Promise<Certificate> {
  const { data, error, response } = await api.POST("/certificates/generate", {
    params: { header: { "Idempotency-Key": idempotencyKey } },
    body: { ...ids, sendEmail: false },
  });
  if (error) {
    throw new ApiError(response.status, error.error.code, error.error.message);
  }
  const replayed: boolean = response.headers.get("Idempotent-Replayed") === "true";
  if (replayed) {
    console.log(`certificate ${data.data.certificateNumber} was issued by an earlier request`);
  }
  return data.data;
}

/** Reads every event, page by page, as the `meta` of each page says. */
export async function allEvents(api: Client, pageSize = 100): Promise<Event[]> {
  const events: Event[] = [];
  for (let page = 1; ; page++) {
    const { data, error, response } = await api.GET("/events", {
      params: { query: { page, pageSize } },
    });
    if (error) {
      throw new ApiError(response.status, error.error.code, error.error.message);
    }
    events.push(...data.data);
    const { total } = data.meta;
    if (data.data.length === 0 || page * data.meta.pageSize >= total) {
      return events;
    }
  }
}

/** An error answer, kept by its stable `code`: programs branch on that, never on `message`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a caller does with an error depends on its code; error codes may be added within v1
 * (`x-extensible-enum`), so a code the program does not know is handled by its HTTP status.
 */
export function retryable(err: ApiError): boolean {
  switch (err.code) {
    case "RATE_LIMITED":
    case "IDEMPOTENCY_IN_PROGRESS":
    case "INTERNAL":
      return true;
    case "VALIDATION_ERROR":
    case "NOT_FOUND":
    case "CONFLICT":
      return false;
    default:
      return err.status === 429 || err.status >= 500;
  }
}

export async function mistakesTheTypesCatch(api: Client) {
  // @ts-expect-error attendeeId is required
  await api.POST("/certificates/generate", { body: { templateId: "t", eventId: "e" } });
  // @ts-expect-error page is a number
  await api.GET("/events", { params: { query: { page: "2" } } });
  // @ts-expect-error no such operation
  await api.GET("/event");
}
