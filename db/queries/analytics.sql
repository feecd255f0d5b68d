-- AnalyticsTotals sums an account's counters over a range of days, per kind of credential
-- (no row for a kind without any counter in the range).
-- name: AnalyticsTotals :many
SELECT credential_kind, sum(issued)::bigint AS issued, sum(issued_verified)::bigint AS issued_verified,
       sum(views)::bigint AS views, sum(shares)::bigint AS shares, sum(downloads)::bigint AS downloads,
       sum(verifications)::bigint AS verifications, sum(claims)::bigint AS claims
FROM analytics_daily
WHERE account_id = @account_id AND day BETWEEN @first_day::date AND @last_day::date
GROUP BY credential_kind;

-- AccountAnalyticsDays sums the account's counters per day over a range, as EventAnalyticsDays
-- does for one event (the dashboard's days).
-- name: AccountAnalyticsDays :many
SELECT day, coalesce(sum(issued) FILTER (WHERE credential_kind = 'certificate'), 0)::bigint AS certificates_issued,
       coalesce(sum(issued) FILTER (WHERE credential_kind = 'badge_assertion'), 0)::bigint AS badges_issued,
       sum(views)::bigint AS views, sum(shares)::bigint AS shares,
       sum(downloads)::bigint AS downloads, sum(verifications)::bigint AS verifications, sum(claims)::bigint AS claims
FROM analytics_daily
WHERE account_id = @account_id AND day BETWEEN @first_day::date AND @last_day::date
GROUP BY day
ORDER BY day;

-- EventAnalyticsDays sums one event's counters per day over a range, the issued ones per kind
-- of credential as well; days without any counter have no row.
-- name: EventAnalyticsDays :many
SELECT day, coalesce(sum(issued) FILTER (WHERE credential_kind = 'certificate'), 0)::bigint AS certificates_issued,
       coalesce(sum(issued) FILTER (WHERE credential_kind = 'badge_assertion'), 0)::bigint AS badges_issued,
       sum(views)::bigint AS views, sum(shares)::bigint AS shares,
       sum(downloads)::bigint AS downloads, sum(verifications)::bigint AS verifications, sum(claims)::bigint AS claims
FROM analytics_daily
WHERE account_id = @account_id AND event_id = @event_id AND day BETWEEN @first_day::date AND @last_day::date
GROUP BY day
ORDER BY day;
