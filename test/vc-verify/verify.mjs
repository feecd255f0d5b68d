// An independent verifier for what internal/vc signs: Digital Bazaar's libraries for the Data
// Integrity proofs (eddsa-rdfc-2022) and the Bitstring Status List, jose for the JWTs, all
// offline; and the standards' own validators (standards.mjs): 1EdTech's Open Badges 3.0 JSON
// Schema with ajv, and the DCC's verifier-core. TestDigitalBazaarVerifiesOurCredentials
// (internal/vc) and TestDigitalBazaarVerifiesTheServedCredentials (internal/httpapi) write
// <dir>/fixtures.json and run
//
//   node test/vc-verify/verify.mjs <dir>
//
// fixtures.json: {
//   contexts: {url: file},          // the Go package's shipped contexts, compared with npm's
//   documents: {url: document},     // DID documents (by DID) and status list credentials, by URL
//   credentials: [{name, credential, documents?, expect: {verified, revoked?, schema?,
//                  verifierCore?: {fatal?, valid_signature?, expiration?, revocation_status?,
//                                  registered_issuer?, schema_check?}}}],
//   jwts: [{name, token, jwks, expect: {verified, schema?, claims?}}]
// }
// A case's documents replace the shared ones of the same URL (a status list after a
// revocation). Every credential and JWT payload is validated against the schema (`schema`,
// `schemaErrors`); verifier-core runs on a credential whose expect names `verifierCore`; the
// JWT's registered claims are checked against its payload (`claims`, `claimErrors`). Prints one
// JSON result, each case with `ok` and the `mismatches` with its expectation, and exits 1 when
// any result differs from what its fixture expects.
import fs from 'node:fs';
import path from 'node:path';
import * as vc from '@digitalbazaar/vc';
import {DataIntegrityProof} from '@digitalbazaar/data-integrity';
import {cryptosuite as eddsaRdfc2022CryptoSuite} from
  '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import {checkStatus} from '@digitalbazaar/vc-bitstring-status-list';
import jsonld from 'jsonld';
import {createLocalJWKSet, jwtVerify} from 'jose';
import {compareShippedContexts, offlineLoader} from './contexts.mjs';
import {schemaErrors, verifyWithVerifierCore} from './standards.mjs';

// stdout carries the one JSON result: what the libraries log goes to stderr.
console.log = console.info = console.warn = (...args) => console.error(...args);

const dir = process.argv[2];
if(!dir) {
  console.error('usage: node verify.mjs <fixtures dir>');
  process.exit(2);
}
const fixtures = JSON.parse(fs.readFileSync(path.join(dir, 'fixtures.json'), 'utf8'));

function messages(error) {
  if(!error) {
    return [];
  }
  const nested = error.errors || (error.cause ? [error.cause] : []);
  return [String(error.message || error), ...nested.flatMap(messages)];
}

async function verifyCredential({name, credential, documents = {}, expect}) {
  const documentLoader = offlineLoader({...fixtures.documents, ...documents});
  const suite = new DataIntegrityProof({cryptosuite: eddsaRdfc2022CryptoSuite});
  const result = await vc.verifyCredential({credential, suite, documentLoader, checkStatus});
  const statuses = result.statusResult?.results || [];
  const revoked = statuses.length ? statuses.some(r => r.status === true) : null;
  const errors = [
    ...messages(result.error),
    ...(result.results || []).flatMap(r => messages(r.error)),
    ...messages(result.statusResult?.error),
  ];
  // What rdf-canonize makes of the credential without its proof: the Go test compares it
  // with json-gold's canonical form.
  const {proof, ...unsigned} = credential;
  const canonical = await jsonld.canonize(unsigned, {
    algorithm: 'RDFC-1.0', format: 'application/n-quads', safe: true, documentLoader,
  }).catch(e => `error: ${e.message}`);
  const schema = schemaErrors(credential);
  const got = {verified: result.verified, revoked, schema: schema.length === 0};
  if(expect.verifierCore) {
    got.verifierCore = await verifyWithVerifierCore(credential, {...fixtures.documents, ...documents});
  }
  const mismatches = differences(got, expect);
  return {
    name, ...got, ok: mismatches.length === 0, mismatches, errors: [...new Set(errors)],
    schemaErrors: schema, canonical,
  };
}

async function verifyJWT({name, token, jwks, expect}) {
  let got;
  try {
    const {payload, protectedHeader} = await jwtVerify(token, createLocalJWKSet(jwks), {
      typ: 'vc+jwt', algorithms: ['EdDSA'],
    });
    got = {verified: true, header: protectedHeader, payload};
  } catch(e) {
    got = {verified: false, error: `${e.code || ''} ${e.message}`.trim()};
  }
  // The payload as a reader decodes it, signature or not: it is the credential.
  const payload = got.payload ?? decodePayload(token);
  const schema = payload ? schemaErrors(payload) : [{instancePath: '/', message: 'payload is not JSON'}];
  const claims = payload ? claimErrors(payload) : ['payload is not JSON'];
  got = {...got, schema: schema.length === 0, claims: claims.length === 0};
  const mismatches = differences(got, expect);
  return {
    name, ...got, ok: mismatches.length === 0, mismatches, schemaErrors: schema, claimErrors: claims,
  };
}

function decodePayload(token) {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

// claimErrors checks the registered claims Open Badges 3.0 requires of a VC-JWT against the
// credential the payload carries: iss = issuer id, jti = id, nbf = validFrom, exp = validUntil
// when set (and no exp otherwise), iat a NumericDate.
function claimErrors(payload) {
  const seconds = date => Math.floor(Date.parse(date) / 1000);
  const issuer = typeof payload.issuer === 'string' ? payload.issuer : payload.issuer?.id;
  const want = {
    iss: issuer, jti: payload.id, nbf: seconds(payload.validFrom),
    exp: payload.validUntil === undefined ? undefined : seconds(payload.validUntil),
  };
  const errors = Object.entries(want).filter(([k, v]) => payload[k] !== v)
    .map(([k, v]) => `${k} is ${JSON.stringify(payload[k])}, want ${JSON.stringify(v)}`);
  if(!Number.isInteger(payload.iat)) {
    errors.push(`iat is ${JSON.stringify(payload.iat)}, want a NumericDate`);
  }
  return errors;
}

// differences lists where got differs from expect ("verifierCore.schema_check: got false,
// want true"), comparing nested expectations key by key.
function differences(got, expect, prefix = '') {
  return Object.entries(expect).flatMap(([k, v]) => {
    if(v !== null && typeof v === 'object') {
      return differences(got[k] ?? {}, v, `${prefix}${k}.`);
    }
    return got[k] === v ? [] :
      [`${prefix}${k}: got ${JSON.stringify(got[k])}, want ${JSON.stringify(v)}`];
  });
}

const result = {
  libraries: Object.fromEntries([
    '@digitalbazaar/vc', '@digitalbazaar/data-integrity',
    '@digitalbazaar/eddsa-rdfc-2022-cryptosuite', '@digitalbazaar/ed25519-multikey',
    '@digitalbazaar/vc-bitstring-status-list', 'jsonld', 'rdf-canonize', 'jose',
    'ajv', 'ajv-formats', '@digitalcredentials/verifier-core',
  ].map(p => [p, JSON.parse(fs.readFileSync(
    new URL(`./node_modules/${p}/package.json`, import.meta.url), 'utf8')).version])),
  contexts: compareShippedContexts(dir, fixtures.contexts),
  credentials: [],
  jwts: [],
};
for(const c of fixtures.credentials) {
  result.credentials.push(await verifyCredential(c));
}
for(const j of fixtures.jwts) {
  result.jwts.push(await verifyJWT(j));
}
const ok = Object.values(result.contexts).every(v => v === 'same') &&
  [...result.credentials, ...result.jwts].every(r => r.ok);
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
process.exit(ok ? 0 : 1);
