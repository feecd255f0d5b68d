-- +goose Up
-- Verifiable credentials (issue 20): each account's Ed25519 issuer keys, its Bitstring Status
-- Lists, and per issued credential its place in a list and what its credential says.

-- An account's issuer keys. The private key is sealed with the secrets key (internal/secretbox,
-- associated data binding it to the account and the key id); the public key is published in
-- the DID document and the JWK Set for as long as the account exists, retired or not, so that
-- what a retired key signed keeps verifying. One key at a time is active: the partial unique
-- index makes two concurrent first needs end with one key (the loser's insert does nothing).
CREATE TABLE issuer_keys (
    id                 uuid PRIMARY KEY,
    account_id         uuid NOT NULL REFERENCES accounts (id),
    public_key         bytea NOT NULL CHECK (length(public_key) = 32),
    private_key_sealed bytea NOT NULL,
    created_at         timestamptz NOT NULL,
    retired_at         timestamptz,
    CHECK (retired_at IS NULL OR retired_at >= created_at)
);
CREATE UNIQUE INDEX issuer_keys_one_active ON issuer_keys (account_id) WHERE retired_at IS NULL;
CREATE INDEX issuer_keys_account_id_idx ON issuer_keys (account_id, created_at);

-- An account's revocation lists, numbered from 1. New credentials draw their index from the
-- lowest list that is not full; full_at is written when a draw finds no free entry left.
-- changed_at moves with every revocation in the list: the signed list's validFrom and ETag.
CREATE TABLE status_lists (
    account_id uuid NOT NULL REFERENCES accounts (id),
    list       integer NOT NULL CHECK (list >= 1),
    created_at timestamptz NOT NULL,
    changed_at timestamptz NOT NULL,
    full_at    timestamptz,
    PRIMARY KEY (account_id, list)
);

-- One row per issued certificate or badge assertion (credential_id is its id): its random
-- index in a list (the unique constraint is what makes concurrent draws collision-free), the
-- salt of its recipient hash, what it says when that is not kept elsewhere (a badge's
-- achievement and issuer, frozen at issuance; a certificate's is its snapshot), when its
-- current content was fixed (signed_at: the proof's created, the issuance or the last
-- regenerate), and revoked_at: its bit in the list.
CREATE TABLE verifiable_credentials (
    credential_id uuid PRIMARY KEY,
    kind          text NOT NULL CHECK (kind IN ('certificate', 'badge_assertion')),
    account_id    uuid NOT NULL,
    list          integer NOT NULL,
    status_index  integer NOT NULL CHECK (status_index BETWEEN 0 AND 131071),
    salt          text NOT NULL CHECK (length(salt) >= 16),
    claims        jsonb,
    signed_at     timestamptz NOT NULL,
    revoked_at    timestamptz,
    CONSTRAINT verifiable_credentials_status_index_key UNIQUE (account_id, list, status_index),
    FOREIGN KEY (account_id, list) REFERENCES status_lists (account_id, list)
);

-- Credentials issued before this migration get their entry here: a random permutation of each
-- account's credentials over its lists (131,072 a list), so indexes are random and never
-- collide, and their bits set when they are revoked already. A badge assertion keeps its own
-- recipient salt, so its Open Badges 2.0 and 3.0 forms hash the email alike. Their claims stay empty: a badge
-- assertion issued before now says what its badge says (nothing froze it at the time).
INSERT INTO status_lists (account_id, list, created_at, changed_at)
SELECT account_id, generate_series(1, (count(*) - 1) / 131072 + 1)::integer, now(), now()
FROM (SELECT account_id FROM certificates WHERE status <> 'draft'
      UNION ALL SELECT account_id FROM badge_assertions) issued
GROUP BY account_id;

INSERT INTO verifiable_credentials (credential_id, kind, account_id, list, status_index, salt, signed_at, revoked_at)
SELECT id, kind, account_id, (n / 131072 + 1)::integer, (n % 131072)::integer, salt, signed_at, revoked_at
FROM (
    SELECT id, kind, account_id, salt, signed_at, revoked_at,
           row_number() OVER (PARTITION BY account_id ORDER BY random()) - 1 AS n
    FROM (
        SELECT id, 'certificate' AS kind, account_id, replace(gen_random_uuid()::text, '-', '') AS salt, updated_at AS signed_at,
               CASE WHEN status = 'revoked' THEN revoked_at END AS revoked_at
        FROM certificates WHERE status <> 'draft'
        UNION ALL
        SELECT a.id, 'badge_assertion', a.account_id, a.recipient_salt, a.issued_at,
               CASE WHEN a.status = 'revoked' THEN a.revoked_at ELSE b.retired_at END
        FROM badge_assertions a JOIN badges b ON b.id = a.badge_id
    ) issued
) drawn;

-- +goose Down
DROP TABLE verifiable_credentials;
DROP TABLE status_lists;
DROP TABLE issuer_keys;
