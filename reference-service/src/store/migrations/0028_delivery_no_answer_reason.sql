-- Why a failed attempt got no answer, kept with its row. Until now the three answer fields stayed null and
-- the reason went to the service's log only, so a tenant reading the portal saw a list of possible causes.
--
-- A code from a closed set (domain/no-answer-reasons.ts, the same list as the CHECK below), never an
-- error's text: the log is the tenant's to read, and the text may name addresses. Null for every answered
-- attempt, every row written before this migration, and every row never dialled. Written by the failure's
-- own statement (recordAttempt); the success path does not touch it. Not in the /v1 delivery record (spec
-- 2.3 fixes its fields): the portal reads it from its own route.
--
-- NOT VALID: every existing row is null, which passes, and checking them would read the whole table while
-- the ALTER holds its lock. New writes are checked all the same.
ALTER TABLE webhook_deliveries ADD COLUMN no_answer_reason text;
ALTER TABLE webhook_deliveries
  ADD CONSTRAINT webhook_deliveries_no_answer_reason
  CHECK (no_answer_reason IN ('timeout', 'connect_timeout', 'refused', 'reset', 'unreachable', 'dns', 'tls',
                              'invalid_response', 'guard_refused', 'listener_gone', 'listener_silent',
                              'service_stopped', 'other'))
  NOT VALID;
