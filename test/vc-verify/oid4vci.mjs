// A wallet claiming a credential offer over OpenID4VCI 1.0 (pre-authorized code), written with
// the OpenWallet Foundation's @openid4vc/openid4vci client: resolve the offer, the issuer's and
// its authorization server's metadata, trade the code for an access token, fetch a c_nonce,
// sign a key proof with a did:key (Ed25519) and request the credential. Reads {offer (the
// openid-credential-offer:// link), seed (32 bytes hex), configurationId} as JSON on stdin and
// writes {holder, response}. The test server speaks http on loopback, which the client allows
// only when told.
import crypto from 'node:crypto';
import {CompactSign} from 'jose';
import {Openid4vciClient} from '@openid4vc/openid4vci';
import {clientAuthenticationAnonymous, setGlobalConfig} from '@openid4vc/oauth2';

const input = JSON.parse(await new Promise(resolve => {
  let s = '';
  process.stdin.on('data', d => s += d).on('end', () => resolve(s));
}));
setGlobalConfig({allowInsecureUrls: true});

// The holder's key and its did:key (multicodec ed25519-pub 0xed01, base58btc).
const seed = Buffer.from(input.seed, 'hex');
const privateKey = crypto.createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8',
});
const publicJwk = crypto.createPublicKey(privateKey).export({format: 'jwk'});
const raw = Buffer.from(publicJwk.x, 'base64url');
const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function base58(bytes) {
  let n = BigInt('0x' + Buffer.from(bytes).toString('hex'));
  let s = '';
  while(n > 0n) { s = alphabet[Number(n % 58n)] + s; n /= 58n; }
  for(const b of bytes) { if(b !== 0) break; s = '1' + s; }
  return s;
}
const fingerprint = 'z' + base58(Buffer.concat([Buffer.from([0xed, 0x01]), raw]));
const holder = `did:key:${fingerprint}`;

const client = new Openid4vciClient({
  callbacks: {
    fetch,
    hash: (data, alg) => new Uint8Array(crypto.createHash(alg.replace('-', '').toLowerCase()).update(data).digest()),
    generateRandom: n => new Uint8Array(crypto.randomBytes(n)),
    clientAuthentication: clientAuthenticationAnonymous(),
    signJwt: async (signer, {header, payload}) => {
      const jwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader(header).sign(privateKey);
      return {jwt, signerJwk: publicJwk};
    },
  },
});

const offer = await client.resolveCredentialOffer(input.offer);
const issuerMetadata = await client.resolveIssuerMetadata(offer.credential_issuer);
const {accessTokenResponse} = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({credentialOffer: offer, issuerMetadata});
const {c_nonce: nonce} = await client.requestNonce({issuerMetadata});
const {jwt} = await client.createCredentialRequestJwtProof({
  issuerMetadata, credentialConfigurationId: input.configurationId, nonce,
  signer: {method: 'did', didUrl: `${holder}#${fingerprint}`, alg: 'EdDSA'},
});
const response = await client.retrieveCredentials({
  issuerMetadata, accessToken: accessTokenResponse.access_token, credentialConfigurationId: input.configurationId,
  proofs: {jwt: [jwt]},
});
process.stdout.write(JSON.stringify({holder, response: response.credentialResponse}));
