-- name: GetBranding :one
SELECT * FROM branding WHERE account_id = @account_id;

-- name: PutBranding :one
INSERT INTO branding (account_id, issuer_name, website, logo, primary_color, email_from_name, email_reply_to,
                      public_email, signatories, default_locale, updated_at)
VALUES (@account_id, sqlc.narg(issuer_name), sqlc.narg(website), sqlc.narg(logo), sqlc.narg(primary_color),
        sqlc.narg(email_from_name), sqlc.narg(email_reply_to), sqlc.narg(public_email), @signatories::jsonb,
        sqlc.narg(default_locale), @now::timestamptz)
ON CONFLICT (account_id) DO UPDATE SET
    issuer_name = EXCLUDED.issuer_name, website = EXCLUDED.website, logo = EXCLUDED.logo,
    primary_color = EXCLUDED.primary_color, email_from_name = EXCLUDED.email_from_name,
    email_reply_to = EXCLUDED.email_reply_to, public_email = EXCLUDED.public_email,
    signatories = EXCLUDED.signatories, default_locale = EXCLUDED.default_locale, updated_at = EXCLUDED.updated_at
RETURNING *;
