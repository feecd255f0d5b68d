// Prints the RDFC-1.0 canonical N-Quads that jsonld.js and rdf-canonize produce for each
// document of a JSON object {name: document}: node canonize.mjs <in.json> > <out.json>.
// internal/vc/testdata/canonical/ was made with it; the Go test compares json-gold with it.
import fs from 'node:fs';
import jsonld from 'jsonld';
import {offlineLoader} from './contexts.mjs';

const docs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = {};
for(const [name, doc] of Object.entries(docs)) {
  out[name] = await jsonld.canonize(doc, {
    algorithm: 'RDFC-1.0', format: 'application/n-quads', safe: true,
    documentLoader: offlineLoader(),
  });
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
