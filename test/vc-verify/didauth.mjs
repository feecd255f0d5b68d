// A holder's DID authentication made exactly as the Learner Credential Wallet makes it for a VC
// API exchange (its composeVp: @digitalcredentials/vc createPresentation with the holder's
// did:key, then signPresentation with an Ed25519Signature2020 suite, the challenge and the
// domain the exchange asked for), offline. Reads {seed (32 bytes hex), challenge, domain} as
// JSON on stdin and writes the signed presentation.
import {createPresentation, signPresentation} from '@digitalcredentials/vc';
import {Ed25519Signature2020} from '@digitalcredentials/ed25519-signature-2020';
import {Ed25519VerificationKey2020} from '@digitalcredentials/ed25519-verification-key-2020';
import {createRequire} from 'node:module';
import {contexts as shipped} from './contexts.mjs';

const require = createRequire(import.meta.url);
const credentialsV1 = require('credentials-context');
const ed25519Context = require('ed25519-signature-2020-context');

const contexts = new Map([...shipped, ...credentialsV1.contexts, ...ed25519Context.contexts]);

async function documentLoader(url) {
  if(contexts.has(url)) {
    return {contextUrl: null, documentUrl: url, document: structuredClone(contexts.get(url))};
  }
  throw new Error(`offline loader: no document for ${url}`);
}

const input = JSON.parse(await new Promise(resolve => {
  let s = '';
  process.stdin.on('data', d => s += d).on('end', () => resolve(s));
}));
const key = await Ed25519VerificationKey2020.generate({seed: Uint8Array.from(Buffer.from(input.seed, 'hex'))});
const did = `did:key:${key.fingerprint()}`;
key.controller = did;
key.id = `${did}#${key.fingerprint()}`;
const presentation = createPresentation({holder: did, version: input.version || 2.0});
const signed = await signPresentation({
  presentation, suite: new Ed25519Signature2020({key}), challenge: input.challenge, domain: input.domain, documentLoader,
});
process.stdout.write(JSON.stringify(signed));
