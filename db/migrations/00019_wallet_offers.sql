-- +goose Up
-- Wallet delivery: an offer lets one recipient claim one credential into a wallet, once, within
-- 30 days, over the VC API exchange or OpenID4VCI. Its token (256 random bits) is the only
-- authorization: it is kept sealed (the lists show the links again) and found through a keyed
-- hash of it, never by a plain digest an attacker with the table could test guesses against.
CREATE TABLE wallet_offers (
    id                 uuid PRIMARY KEY,
    account_id         uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    certificate_id     uuid REFERENCES certificates (id),
    badge_assertion_id uuid REFERENCES badge_assertions (id),
    token_hash         bytea NOT NULL UNIQUE,
    token_sealed       bytea NOT NULL,
    expires_at         timestamptz NOT NULL,
    claimed_at         timestamptz,
    holder             text,
    protocol           text CHECK (protocol IN ('vcapi', 'oid4vci')),
    created_at         timestamptz NOT NULL,
    CHECK ((certificate_id IS NULL) <> (badge_assertion_id IS NULL)),
    CHECK ((claimed_at IS NULL) = (holder IS NULL) AND (claimed_at IS NULL) = (protocol IS NULL))
);
CREATE INDEX wallet_offers_certificate_idx ON wallet_offers (certificate_id, created_at DESC, id DESC) WHERE certificate_id IS NOT NULL;
CREATE INDEX wallet_offers_assertion_idx ON wallet_offers (badge_assertion_id, created_at DESC, id DESC) WHERE badge_assertion_id IS NOT NULL;
COMMENT ON TABLE wallet_offers IS 'Offers of a credential to its recipient''s wallet: claimable once, by either protocol, until expires_at.';

-- The single-use secrets of a claim in progress, each found by the SHA-256 of its 256 random
-- bits: a VC API exchange's challenge, an OpenID4VCI pre-authorized code and access token (of
-- one offer), and c_nonces (of one issuer, the account). Spending one sets used_at in the
-- statement that checks it is unused.
CREATE TABLE wallet_secrets (
    hash       bytea PRIMARY KEY,
    kind       text NOT NULL CHECK (kind IN ('challenge', 'pre_authorized_code', 'access_token', 'nonce')),
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    offer_id   uuid REFERENCES wallet_offers (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    CHECK ((kind = 'nonce') = (offer_id IS NULL))
);
CREATE INDEX wallet_secrets_expiry_idx ON wallet_secrets (expires_at);
COMMENT ON TABLE wallet_secrets IS 'Single-use secrets of wallet claims (challenges, pre-authorized codes, access tokens, nonces), by SHA-256.';

-- Claims counted per day, beside issuance and verification.
ALTER TABLE analytics_daily ADD COLUMN claims integer NOT NULL DEFAULT 0 CHECK (claims >= 0);
COMMENT ON COLUMN analytics_daily.claims IS 'Credentials claimed into a wallet on this day.';

-- A wallet's claim is an event like the others (certificate.claimed, badge.claimed).
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_event_type_check;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_event_type_check
    CHECK (event_type IN ('certificate.issued', 'certificate.sent', 'certificate.viewed', 'certificate.downloaded',
                          'certificate.revoked', 'certificate.claimed', 'badge.issued', 'badge.revoked', 'badge.claimed',
                          'job.completed', 'webhook.test'));

-- +goose Down
-- Events already written stay (nothing is erased): the old check holds for new rows only.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_event_type_check;
ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_event_type_check
    CHECK (event_type IN ('certificate.issued', 'certificate.sent', 'certificate.viewed', 'certificate.downloaded',
                          'certificate.revoked', 'badge.issued', 'badge.revoked', 'job.completed', 'webhook.test')) NOT VALID;
ALTER TABLE analytics_daily DROP COLUMN claims;
DROP TABLE wallet_secrets;
DROP TABLE wallet_offers;
