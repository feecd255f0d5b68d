-- The writes of an issuance, applied by the store's executor (internal/store/executor.go,
-- Tx.ApplyIssuance): it queues them, with sqlc's parameters, into one pgx.Batch that travels in
-- one round trip while the account's hot rows (its credit row, its number counter, the day's
-- analytics rows) are held, in the lock order of applyInLockOrder. Each statement stands on its
-- own: what is written is decided by internal/issuance's plan, in Go. A statement's failure
-- aborts the transaction, so the later ones of the batch do nothing; a statement that finds
-- nothing to do answers no row and the caller rolls the transaction back (CREDIT_LIMIT, a
-- draft no longer a draft).

-- IssuanceSpendCredits takes n credits of the account's month, all or none: no row comes back
-- when fewer than n are left. The conflicting row is locked and re-checked, so concurrent
-- spends never pass the limit.
-- name: IssuanceSpendCredits :one
INSERT INTO credit_usage AS u (account_id, period, used)
SELECT a.id, @period::date, @n::integer FROM accounts a JOIN plans p ON p.code = a.plan
WHERE a.id = @account_id AND coalesce(p.monthly_credits, 2147483647) >= @n::integer
ON CONFLICT (account_id, period) DO UPDATE SET used = u.used + @n::integer
WHERE u.used <= (SELECT coalesce(p.monthly_credits, 2147483647) FROM accounts a JOIN plans p ON p.code = a.plan WHERE a.id = u.account_id) - @n::integer
RETURNING used;

-- IssuanceLockCredits takes the account's credit row of the month, spending nothing (made when
-- there is none yet), for a transaction that writes certificates without a credit (drafts):
-- every transaction that takes the account's number counter takes its credit row first, so
-- that one that prepares a draft and then issues a certificate in another savepoint (a group's
-- issuances one by one) cannot hold the counter while it waits for the credit row that
-- another issuance holds as it waits for the counter. DO UPDATE locks the row, a WHERE could
-- not leave it unlocked.
-- name: IssuanceLockCredits :exec
INSERT INTO credit_usage AS u (account_id, period, used) VALUES (@account_id, @period::date, 0)
ON CONFLICT (account_id, period) DO UPDATE SET used = u.used;

-- IssuanceExpireCertificates marks the account's issued certificates @ids, lapsed at @now,
-- expired: each is the key's lapsed certificate of a certificate about to be issued (new, or a
-- draft turned issued), which the one issued certificate per key makes room for. Queued after
-- the credits (the account's first hot row), since the change of status moves the list totals:
-- marked before it, while the key was read, two issuing transactions of one account could each
-- hold a totals row the other waited for while one of them waited for the credit row.
-- name: IssuanceExpireCertificates :exec
UPDATE certificates SET status = 'expired', updated_at = @now::timestamptz
WHERE id = ANY(@ids::uuid[]) AND account_id = @account_id
  AND status = 'issued' AND expires_at IS NOT NULL AND expires_at <= @now::timestamptz;

-- IssuanceInsertCertificates stores new certificates and drafts of one account, in one
-- statement (its triggers, the search rows and the kept list totals, fire once for all), each
-- numbered with the account's next number in the order given: the account's counter moves on
-- by their count once, and the i-th (from 1) takes the counter's old value plus i, written as
-- its @number_prefixes (then the number zero-padded to @number_digits). Each is stored under its
-- @verification_codes, reserved before (ReserveNewCertificateCode, or
-- RegisterVerificationCodes). A draft has no issue time: @issued_ats is read only for a status
-- other than draft, and @expires_ats only where @expiring says so (arrays carry no NULL here).
-- name: IssuanceInsertCertificates :many
WITH counter AS (
    INSERT INTO certificate_counters AS c (account_id, last_number) VALUES (@account_id, cardinality(@ids::uuid[]))
    ON CONFLICT (account_id) DO UPDATE SET last_number = c.last_number + cardinality(@ids::uuid[])
    RETURNING last_number - cardinality(@ids::uuid[]) AS before
), given AS (
    SELECT unnest(@ids::uuid[]) AS id, unnest(@event_ids::uuid[]) AS event_id, unnest(@attendee_ids::uuid[]) AS attendee_id,
        unnest(@template_ids::uuid[]) AS template_id, unnest(@number_prefixes::text[]) AS number_prefix,
        unnest(@number_digits::integer[]) AS number_digits, unnest(@verification_codes::text[]) AS verification_code,
        unnest(@statuses::text[]) AS status, unnest(@recipient_first_names::text[]) AS recipient_first_name,
        unnest(@recipient_last_names::text[]) AS recipient_last_name, unnest(@recipient_emails::text[]) AS recipient_email,
        unnest(@snapshots::jsonb[]) AS snapshot, unnest(@issued_ats::timestamptz[]) AS issued_at,
        unnest(@expiring::boolean[]) AS expiring, unnest(@expires_ats::timestamptz[]) AS expires_at,
        generate_series(1, cardinality(@ids::uuid[])) AS ord
), numbered AS (
    SELECT g.id, g.event_id, g.attendee_id, g.template_id, g.verification_code, g.status,
        g.recipient_first_name, g.recipient_last_name, g.recipient_email, g.snapshot,
        CASE WHEN g.status <> 'draft' THEN g.issued_at END AS issued_at,
        CASE WHEN g.expiring THEN g.expires_at END AS expires_at,
        g.number_prefix || lpad((counter.before + g.ord)::text,
            greatest(g.number_digits, length((counter.before + g.ord)::text)), '0') AS certificate_number
    FROM counter, given g
)
INSERT INTO certificates (id, account_id, event_id, attendee_id, attendee_link, template_id, certificate_number, verification_code,
    status, recipient_first_name, recipient_last_name, recipient_email, snapshot, issued_at, expires_at, created_at, updated_at)
SELECT id, @account_id, event_id, attendee_id, attendee_id, template_id, certificate_number, verification_code, status,
    recipient_first_name, recipient_last_name, recipient_email, snapshot, issued_at, expires_at, @now::timestamptz, @now::timestamptz
FROM numbered
RETURNING *;

-- IssuanceIssueDraft turns a draft into the issued certificate, keeping its number and code;
-- no row when it is no longer a draft.
-- name: IssuanceIssueDraft :one
UPDATE certificates SET status = 'issued', recipient_first_name = @recipient_first_name,
    recipient_last_name = @recipient_last_name, recipient_email = @recipient_email, snapshot = @snapshot,
    issued_at = @issued_at, expires_at = sqlc.narg(expires_at), updated_at = @now::timestamptz
WHERE id = @id AND status = 'draft'
RETURNING *;

-- IssuanceInsertStatusEntries gives issued credentials of one account their entries in the
-- account's open status list (the lowest that is not full), in one statement: each at the
-- first of its @per random candidates that is free (the i-th credential's, from 0, are
-- @candidates[i*per+1 .. (i+1)*per]). The unique keys decide, by index probes whatever the
-- table's size: a candidate after the credential's first free one conflicts with it on
-- credential_id, and one that another credential of the statement took, on the list's index.
-- A credential left out of the rows answered (no open list, or every candidate taken) is
-- drawn the long way by the caller after the batch (credentials.AssignStatus). @claims holds
-- NULL for a credential whose claims are kept elsewhere (a certificate's snapshot). Trying
-- the candidates one insert at a time in PL/pgSQL, stopping at the first that takes, was
-- measured no cheaper (docs/benchmarks.md): the cost is the entry's own insert, not the
-- candidates dropped.
-- name: IssuanceInsertStatusEntries :many
INSERT INTO verifiable_credentials (credential_id, kind, account_id, list, status_index, salt, claims, signed_at)
SELECT e.credential_id, e.kind, @account_id, l.list, e.candidate, e.salt, e.claims, @now::timestamptz
FROM (SELECT s.list FROM status_lists s WHERE s.account_id = @account_id AND s.full_at IS NULL ORDER BY s.list LIMIT 1) l,
     (SELECT x.credential_id, x.kind, x.salt, x.claims,
             unnest(x.candidates[x.first : x.first + x.per - 1]) AS candidate
      FROM (SELECT unnest(@credential_ids::uuid[]) AS credential_id, unnest(@kinds::text[]) AS kind, unnest(@salts::text[]) AS salt,
                   unnest(@claims::jsonb[]) AS claims,
                   generate_series(1, cardinality(@candidates::integer[]), @per::integer) AS first,
                   @per::integer AS per, @candidates::integer[] AS candidates) x) e
ON CONFLICT DO NOTHING
RETURNING credential_id;

-- IssuanceInsertCertificateEvents writes one outbox event of @event_type for each certificate
-- written earlier in the same batch (inserted, or a draft issued), in the order given: its
-- @payloads with the certificate's number, which only its row knows by then, set at the fixed
-- path data.certificateNumber (the field every certificate event carries, see
-- certificates.eventData); recorded dispatched already unless @pending (the plan knows whether
-- an active subscription of the account takes the kind, and queues the fan-out job with it).
--
-- Each certificate is read by its key, one lookup per event: a plain join let the planner
-- hash every certificate of the account instead (thousands of rows read for a few events)
-- when the table's statistics put fewer rows in the account than the arrays hold, as they
-- do for an account larger than the average or grown since the last ANALYZE. The LIMIT keeps
-- the subquery from being pulled up into such a join; the account is checked outside it, on
-- the row found, so that the lookup has the primary key alone to use: with the account's id
-- beside it, a generic plan took an index that leads with the account
-- (certificates_account_status_idx) and walked the account's entries for each event.
-- name: IssuanceInsertCertificateEvents :exec
INSERT INTO outbox_events (id, account_id, event_type, payload, occurred_at, dispatched_at)
SELECT e.id, c.account_id, @event_type::text,
    jsonb_set(e.payload, '{data,certificateNumber}', to_jsonb(c.certificate_number)), @occurred_at::timestamptz,
    CASE WHEN @pending::boolean THEN NULL ELSE @occurred_at::timestamptz END
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@certificate_ids::uuid[]) AS certificate_id, unnest(@payloads::jsonb[]) AS payload,
             generate_series(1, cardinality(@ids::uuid[])) AS ord) e
CROSS JOIN LATERAL (SELECT c.account_id, c.certificate_number FROM certificates c
                    WHERE c.id = e.certificate_id LIMIT 1) c
WHERE c.account_id = @account_id
ORDER BY e.ord;

-- IssuanceInsertOutboxEvents writes several events of one account and kind, in the order
-- given, dispatched already unless @pending (as IssuanceInsertCertificateEvents).
-- name: IssuanceInsertOutboxEvents :exec
INSERT INTO outbox_events (id, account_id, event_type, payload, occurred_at, dispatched_at)
SELECT unnest(@ids::uuid[]), @account_id, @event_type, unnest(@payloads::jsonb[]), @occurred_at,
       CASE WHEN @pending::boolean THEN NULL ELSE @occurred_at::timestamptz END;

-- IssuanceCountIssued adds credentials issued to the day's counters (parallel arrays, one
-- element a row), in key order: the plan sorts them (store.IssuedCounts).
-- name: IssuanceCountIssued :exec
INSERT INTO analytics_daily AS d (account_id, day, event_id, credential_kind, issued)
SELECT account_id, day, event_id, kind, sum(n)::integer
FROM (SELECT unnest(@account_ids::uuid[]) AS account_id, unnest(@days::date[]) AS day, unnest(@event_ids::uuid[]) AS event_id,
             unnest(@kinds::text[]) AS kind, unnest(@counts::integer[]) AS n) AS c
GROUP BY account_id, day, event_id, kind
ORDER BY account_id, day, event_id, kind
ON CONFLICT (account_id, day, event_id, credential_kind) DO UPDATE SET issued = d.issued + excluded.issued;

-- IssuancePlanGenerically and IssuancePlanAsBefore enclose an issuance's writes (Tx.ApplyIssuance):
-- the writes are planned once a connection, their generic plans kept, instead of at every call.
-- PostgreSQL reads the arrays of a custom plan's parameters (their lengths) and estimates an
-- unknown array at a hundred rows in a generic plan, so plan_cache_mode auto never chose the
-- generic plan of IssuanceInsertCertificates, IssuanceInsertStatusEntries and
-- IssuanceInsertCertificateEvents: they were planned on every call (docs/benchmarks.md,
-- "Figures behind design choices", has what that cost). Their generic plans are the
-- custom ones (every row they read, by its key). The mode is set for the writes alone, local to
-- the transaction: IssuancePlanGenerically keeps the mode it finds in the setting @kept (a name
-- of the service's own, "credentiald.plan_cache_mode"), IssuancePlanAsBefore puts it back.
-- name: IssuancePlanGenerically :exec
SELECT set_config(@kept::text, current_setting('plan_cache_mode'), true),
       set_config('plan_cache_mode', 'force_generic_plan', true);

-- name: IssuancePlanAsBefore :exec
SELECT set_config('plan_cache_mode', current_setting(@kept::text), true);
