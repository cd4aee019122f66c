-- Organizations gain an owner role (src/accounts/roles.ts), and every organization keeps at least
-- one owner. One that has none yet has its longest-standing admin promoted.
UPDATE organization_members m SET role = 'owner'
FROM (
  SELECT DISTINCT ON (organization_id) organization_id, user_id
  FROM organization_members
  WHERE role = 'admin'
    AND organization_id NOT IN (SELECT organization_id FROM organization_members WHERE role = 'owner')
  ORDER BY organization_id, created_at, user_id
) first_admin
WHERE m.organization_id = first_admin.organization_id AND m.user_id = first_admin.user_id;
--> statement-breakpoint
UPDATE organization_members SET role = 'member' WHERE role NOT IN ('owner', 'admin', 'member');
--> statement-breakpoint
ALTER TABLE organization_members ADD CONSTRAINT organization_members_role_check CHECK (role IN ('owner', 'admin', 'member'));
