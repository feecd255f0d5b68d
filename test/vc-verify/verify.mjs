// An independent verifier for what internal/vc signs: Digital Bazaar's libraries for the Data
// Integrity proofs (eddsa-rdfc-2022) and the Bitstring Status List, jose for the JWTs, all
// offline. TestDigitalBazaarVerifiesOurCredentials writes <dir>/fixtures.json and runs
//
//   node test/vc-verify/verify.mjs <dir>
//
// fixtures.json: {
//   contexts: {url: file},          // the Go package's shipped contexts, compared with npm's
//   documents: {url: document},     // DID documents and status list credentials, by URL
//   credentials: [{name, credential, documents?, expect: {verified, revoked?}}],
//   jwts: [{name, token, jwks, expect: {verified}}]
// }
// A case's documents replace the shared ones of the same URL (a status list after a
// revocation). Prints one JSON result and exits 1 when a result differs from its expectation.
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
  const got = {verified: result.verified, revoked};
  return {name, ...got, ok: matches(got, expect), errors: [...new Set(errors)], canonical};
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
  return {name, ...got, ok: matches(got, expect)};
}

function matches(got, expect) {
  return Object.entries(expect).every(([k, v]) => got[k] === v);
}

const result = {
  libraries: Object.fromEntries([
    '@digitalbazaar/vc', '@digitalbazaar/data-integrity',
    '@digitalbazaar/eddsa-rdfc-2022-cryptosuite', '@digitalbazaar/ed25519-multikey',
    '@digitalbazaar/vc-bitstring-status-list', 'jsonld', 'rdf-canonize', 'jose',
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
