-- Rotating a listener's secret rotates the workspace's listener secret (listener_secrets), which every live
-- listener of the workspace signs with. The rotated-out secret is kept here, sealed like the current one,
-- until `rotating_until`, so that a listener opened during the overlap signs with both, as the listeners
-- already open do (their endpoint rows get the same two secrets and end time at the rotation).
ALTER TABLE listener_secrets ADD COLUMN previous_secret_enc TEXT;
ALTER TABLE listener_secrets ADD COLUMN rotating_until BIGINT;
