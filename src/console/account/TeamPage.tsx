/**
 * 'Your team' (/account/team; spec part 1 §2 Team screen, §3 Company user, §6, §7 companyauthwrapper calls, §8 Team
 * texts): the project's admins, a form to add one (email typed as email, password, optional names) and removal behind
 * a confirmation modal, all generated from listCompanyUsers' `x-screen` (ManagedList). The earliest-created admin is
 * the super-admin; the server refuses to remove them, so no Remove is offered and the row says to contact support.
 */
import { useCallback } from 'react';
import { Chip, Typography } from '@mui/material';
import { screensByName } from '../../../generated/screens.gen';
import type { components } from '../../../generated/types/companyauthwrapper.gen';
import { ManagedList, type Row } from '../resources/shared/ManagedList';
import { getSession } from '../session';

type CompanyUser = components['schemas']['CompanyUser'];

/** Team reads retry 5 times, 1 s apart (spec part 1 §7). */
const TEAM_READ_RETRY = { retries: 5, delayMs: 1000 };

/** teamAddErrorText words an add failure (spec part 1 §8): a cu_le_idx violation reads as the duplicate-email text. */
export function teamAddErrorText(message: string): string {
  return /cu_le_idx|already exists/.test(message) ? 'Another user with that email already exists' : message;
}

const member = (row: Row) => row as unknown as CompanyUser;

/** The cells the column types cannot draw: the super-admin's chip and note, the full name, who added them. */
const CELLS = {
  email: (row: Row) => {
    const m = member(row);
    return (
      <>
        {m.email}
        {m.super_admin && <Chip size="small" label="Super-admin" sx={{ ml: 1 }} />}
        {m.super_admin && (
          <Typography variant="body2" color="text.secondary">
            The super-admin cannot be removed. Contact support to change this email.
          </Typography>
        )}
      </>
    );
  },
  name: (row: Row) => [member(row).first_name, member(row).last_name].filter(Boolean).join(' '),
  added_by: (row: Row) => String(member(row).json.addedBy ?? ''),
};

/** TeamPanel lists, adds and removes the project's admins; used by /account/team and (embedded) /account/settings. */
export function TeamPanel({ embedded = false }: { embedded?: boolean }) {
  const session = getSession();
  const company_name = session?.company.name;
  const project_name = session?.project.name;
  const list = useCallback(() => ({ query: { company_name, project_name } }), [company_name, project_name]);
  return (
    <ManagedList
      definition={screensByName.team}
      embedded={embedded}
      listRetry={TEAM_READ_RETRY}
      cells={CELLS}
      canDelete={(row) => !member(row).super_admin}
      errorText={teamAddErrorText}
      requests={{
        list,
        create: (data) => ({
          body: {
            company_user: {
              email: String(data.email ?? '').trim(),
              first_name: String(data.first_name ?? '').trim() || null,
              last_name: String(data.last_name ?? '').trim() || null,
            },
            company_name,
            project_name,
            password: data.password,
            added_by: session?.user.email ?? null,
          },
        }),
        delete: (row) => ({ body: { company_user: { id: row.id } } }),
      }}
    />
  );
}

/** TeamPage is /account/team. */
export function TeamPage() {
  return <TeamPanel />;
}
