-- Audit rows written before paths were redacted held invitation tokens verbatim (a token stays live until accepted).
UPDATE `audit_log` SET `path` = '/v1/workspaces/invitations/[redacted]/accept' WHERE `path` LIKE '/v1/workspaces/invitations/%/accept' AND `path` <> '/v1/workspaces/invitations/[redacted]/accept';
