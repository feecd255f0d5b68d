// The standards' own validators, offline: 1EdTech's Open Badges 3.0 JSON Schema (vendored in
// test/standards) checked with ajv, and the Digital Credentials Consortium's verifier-core (what
// the Learner Credential Wallet and VerifierPlus run). verify.mjs calls them per case.
import fs from 'node:fs';
import {Ajv2019} from 'ajv/dist/2019.js';
import addFormats from 'ajv-formats';
import {contexts} from './contexts.mjs';

// schemaURL is the schema's $id: verifier-core fetches it for every OpenBadgeCredential that
// names the VC 2.0 context; the fetch below answers it with the vendored copy.
export const schemaURL =
  'https://purl.imsglobal.org/spec/ob/v3p0/schema/json/ob_v3p0_achievementcredential_schema.json';
const schemaText = fs.readFileSync(
  new URL('../standards/ob_v3p0_achievementcredential_schema.json', import.meta.url), 'utf8');

const ajv = new Ajv2019({allErrors: true, strict: false});
addFormats(ajv);
const validate = ajv.compile(JSON.parse(schemaText));

// schemaErrors validates a credential (or a JWT payload) against the vendored schema and
// returns every failure as {instancePath, message}; none when it is valid.
export function schemaErrors(document) {
  return validate(document) ? [] : validate.errors.map(describe);
}

function describe({instancePath, message, params}) {
  // ajv's message for additionalProperties and friends does not name the property.
  const extra = params?.additionalProperty ?? params?.unevaluatedProperty;
  return {instancePath: instancePath || '/', message: extra ? `${message}: ${extra}` : message};
}

// Everything verifier-core reaches for goes through globalThis.fetch (did:web, status lists,
// the schema, contexts it lacks). offlineFetch answers from the documents of the case being
// verified: a URL as given, or an https URL of a did:web DID document by its DID; the schema
// from the vendored file; contexts from the npm packages. Anything else answers 404 and is
// recorded in `refused`, so a run never reaches the network.
let caseDocuments = {};
export const refused = [];
globalThis.fetch = async function offlineFetch(input) {
  const url = typeof input === 'string' ? input : (input.url ?? String(input));
  const answer = body => new Response(body, {
    status: 200, headers: {'content-type': 'application/json'},
  });
  if(url === schemaURL) {
    return answer(schemaText);
  }
  if(contexts.has(url)) {
    return answer(JSON.stringify(contexts.get(url)));
  }
  const doc = caseDocuments[url] ?? caseDocuments[didWebOf(url)];
  if(doc !== undefined) {
    return answer(JSON.stringify(doc));
  }
  refused.push(url);
  return new Response('offline', {status: 404, statusText: 'Not Found (offline)'});
};

// didWebOf is the did:web DID whose document lives at url (did-method-web's rule: the host,
// port percent-encoded, then the path without /did.json, colons between segments).
function didWebOf(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if(u.protocol !== 'https:') {
    return undefined;
  }
  const segments = u.pathname.replace(/\/?(\.well-known\/)?did\.json$/, '')
    .split('/').filter(Boolean).map(encodeURIComponent);
  return ['did:web', encodeURIComponent(u.host), ...segments].join(':');
}

let verifierCore;

// verifyWithVerifierCore runs verifier-core's verifyCredential with documents answering its
// fetches, and reduces its answer to one entry per check it reports:
//   fatal: the name of its first fatal error (invalid_signature, did_web_unresolved, ...), or null
//   valid_signature, expiration, revocation_status, registered_issuer: its log's `valid`, or
//     null when it did not run that check (revocation_status false = revoked)
//   schema_check: true when every schema it checked the credential against passed
//   schemaErrors: [{schema, instancePath, message}], errors: its error messages.
// The raw answer is the credential, `log`, `additionalInformation` ([{id: 'schema_check',
// results: [{schema, result: {valid, errors}, source}]}]) and, on a fatal error, `errors`.
export async function verifyWithVerifierCore(credential, documents) {
  verifierCore ??= await import('@digitalcredentials/verifier-core');
  caseDocuments = documents;
  refused.length = 0;
  // No registries: offline, registered_issuer is false ("issuer not in a registry").
  const result = await verifierCore.verifyCredential({credential, knownDIDRegistries: []});
  const log = Object.fromEntries((result.log || []).map(e => [e.id, e.valid ?? null]));
  const schema = (result.additionalInformation || []).find(e => e.id === 'schema_check');
  const schemaResults = Array.isArray(schema?.results) ? schema.results : [];
  const out = {
    fatal: result.errors?.[0]?.name ?? null,
    valid_signature: log.valid_signature ?? null,
    expiration: log.expiration ?? null,
    revocation_status: log.revocation_status ?? null,
    registered_issuer: log.registered_issuer ?? null,
    schema_check: schemaResults.length > 0 && schemaResults.every(r => r.result?.valid === true),
    schemas: schema ? (schemaResults.length ? schemaResults.map(r => r.schema) : [schema.results]) : [],
    schemaErrors: schemaResults.flatMap(r => (r.result?.errors || []).map(e => ({
      schema: r.schema, ...describe(e),
    }))),
    errors: [
      ...(result.errors || []).map(e => `${e.name}: ${e.message}`),
      ...(result.log || []).filter(e => e.error).map(e => `${e.id}: ${e.error.name}: ${e.error.message}`),
    ],
  };
  if(refused.length) {
    out.errors.push(...refused.map(u => `offline fetch refused ${u}`));
  }
  return out;
}
