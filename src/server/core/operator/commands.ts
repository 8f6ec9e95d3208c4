/**
 * The operator commands of `npm run admin -- <command>`, as one function both callers share: the
 * command line runs it over its own database connection (PostgreSQL, or a PGlite folder no server holds), and a
 * running server runs it for the command line (POST {operator}/cli) when the server holds the PGlite folder, so a
 * command never reports success for a change the running server cannot see. What a command prints is returned, not
 * written, so the server can hand it back.
 *
 * Projects are named by id, by an admin's email (--email) or by name (--project NAME, narrowed by --company); a name
 * that matches more than one project is refused with the list (resolveProject).
 */
import type { AppContext } from '../../context.ts';
import { HttpError } from '../../errors.ts';
import { createAccount } from '../accounts/index.ts';
import { resetDemoAccount } from '../accounts/demo.ts';
import { activationMailer } from './activationMail.ts';
import { createOperator, listMessages, resolveProject, setProjectActive, setProjectSuspended, verifyPersonasByEmail } from './index.ts';

/** The command line's arguments (admin.ts parseArgs values). */
export interface CommandArgs {
  company?: string;
  project?: string;
  email?: string;
  password?: string;
  'first-name'?: string;
  'last-name'?: string;
  reason?: string;
  limit?: string;
  activated?: boolean;
}

/** Every command, with its usage line. */
export const COMMANDS: Record<string, string> = {
  'create-account': 'create-account --company NAME --project NAME --email EMAIL --password PASSWORD [--activated]',
  activate: 'activate (--project ID | --email ADMIN_EMAIL | --project NAME [--company NAME])',
  sandbox: 'sandbox (--project ID | --email ADMIN_EMAIL | --project NAME [--company NAME])',
  suspend: 'suspend (--project ID | --email ADMIN_EMAIL | …) --reason TEXT',
  resume: 'resume (--project ID | --email ADMIN_EMAIL | …)',
  'verify-persona': 'verify-persona --email PERSONA_EMAIL [--project ID|NAME]',
  'create-operator': 'create-operator --email EMAIL --password PASSWORD',
  'contact-messages': 'contact-messages [--limit N]',
  'reset-demo': 'reset-demo',
  'rebuild-reports': 'rebuild-reports [--project ID|NAME [--company NAME]]',
};

/** The usage text (exit code 2). */
export const USAGE = Object.values(COMMANDS)
  .map((u, i) => `${i ? '       ' : 'usage: '}npm run admin -- ${u}`)
  .join('\n');

/** What the command printed and its exit code: 0 done, 1 failed, 2 usage. */
export interface CommandResult {
  code: number;
  output: string;
}

/**
 * runCommand runs one operator command as `actor` (e.g. "cli (alice)") over `deps` and returns what it printed and its
 * exit code; bad input and unknown targets are a code 1 with the message, never a throw (other errors pass through).
 */
export async function runCommand(
  deps: Pick<AppContext, 'config' | 'database' | 'transport'>,
  command: string,
  args: CommandArgs,
  actor: string,
): Promise<CommandResult> {
  const out: string[] = [];
  const print = (line: string) => out.push(line);
  const query = deps.database.query.bind(deps.database) as typeof deps.database.query;
  if (!(command in COMMANDS)) return { code: 2, output: USAGE };
  try {
    if (command === 'create-account') {
      const { apiKey, projectId } = await createAccount(deps.database.db, {
        company: args.company ?? '',
        project: args.project ?? '',
        email: args.email ?? '',
        password: args.password ?? '',
        firstName: args['first-name'],
        lastName: args['last-name'],
        activated: args.activated,
      });
      print(`Created ${args.company} / ${args.project} (${args.activated ? 'activated' : 'in the sandbox'}), admin ${args.email}`);
      print(`project id: ${projectId}`);
      print(`api key: ${apiKey}`);
    } else if (command === 'activate' || command === 'sandbox') {
      const p = await resolveProject(query, args);
      const row = await setProjectActive(query, p.id, command === 'activate', actor, activationMailer(deps));
      print(
        command === 'activate'
          ? `Activated ${p.company} / ${p.name} (${p.id}): it may now send to any recipient; its admins (${row.admin_emails.join(', ')}) were told.`
          : `${p.company} / ${p.name} (${p.id}) is back in the sandbox.`,
      );
    } else if (command === 'suspend' || command === 'resume') {
      const p = await resolveProject(query, args);
      await setProjectSuspended(query, p.id, command === 'suspend', actor, args.reason);
      print(command === 'suspend' ? `Suspended all sending of ${p.company} / ${p.name} (${p.id}).` : `Resumed sending of ${p.company} / ${p.name} (${p.id}).`);
    } else if (command === 'verify-persona') {
      if (!args.email) throw new HttpError(400, ['email: Required field']);
      const project = args.project ? await resolveProject(query, { project: args.project, company: args.company }) : undefined;
      const confirmed = await verifyPersonasByEmail(query, args.email, actor, project?.id);
      if (!confirmed) throw new HttpError(404, [`email: no sender persona ${args.email}${args.project ? ` in project ${args.project}` : ''}`]);
      print(`Confirmed ${confirmed} sender persona(s) ${args.email}: they may send now.`);
    } else if (command === 'create-operator') {
      const op = await createOperator(query, args.email ?? '', args.password ?? '', actor);
      print(`Created operator ${op.email}: sign in at ${deps.config.publicUrl}/operator/login`);
    } else if (command === 'contact-messages') {
      const rows = await listMessages(query, { limit: Math.max(1, Number(args.limit) || 20), offset: 0 });
      for (const m of rows) {
        const volume = m.expected_monthly_volume ? `  expected monthly volume: ${m.expected_monthly_volume}\n` : '';
        print(
          `${m.created_at}  ${m.kind === 'activation' ? 'activation request ' : ''}${m.email}${m.name ? ` (${m.name})` : ''}\n${volume}  ${m.details.replace(/\n/g, '\n  ')}\n`,
        );
      }
      if (!rows.length) print('No contact messages.');
    } else if (command === 'reset-demo') {
      await resetDemoAccount(deps.database.db);
      print('The demo account is back to its known contents.');
    } else if (command === 'rebuild-reports') {
      const project = args.project ? await resolveProject(query, { project: args.project, company: args.company }) : undefined;
      const started = Date.now();
      await query('SELECT report_rebuild($1::uuid)', [project?.id ?? null]);
      print(
        `Rebuilt the report aggregates of ${project ? `${project.company} / ${project.name}` : 'every project'} from the raw events in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
      );
    }
    return { code: 0, output: out.join('\n') };
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    return { code: 1, output: [...out, ...err.errors].join('\n') };
  }
}
