import { PERMISSIONS } from '@svc-kit/contract';
import type { ServiceContext } from '../../context.js';
import { ServiceError } from '../../domain/errors.js';
import { isPermission } from '../../domain/permissions.js';
import { currentTotp } from '../../domain/totp.js';
import { SESSION_COOKIE } from '../../http/principal.js';
import { getMember } from '../../store/queries/members.js';
import { setWorkspaceFlag, type WorkspaceFlag } from '../../store/queries/workspaces.js';
import { createWorkspaceForOwner } from '../accounts/operator.js';
import { openSession } from '../accounts/session.js';
import {
  insertSandboxKey,
  SANDBOX_EMAIL,
  SANDBOX_MEMBER_ID,
  SANDBOX_WORKSPACE_ID,
  seedSandbox,
} from './seed.js';
import { triggerEvent } from './trigger.js';

/** `create-workspace <name> --owner <email>`: a workspace for someone where sign-up is closed. */
async function createWorkspace(ctx: ServiceContext, args: string[]): Promise<string> {
  const [name, flag, email, ...rest] = args;
  if (name === undefined || flag !== '--owner' || email === undefined || rest.length)
    throw new AdminUsageError('usage: create-workspace <name> --owner <email>');
  try {
    const created = await createWorkspaceForOwner(ctx, name, email);
    return [
      `workspace ${created.workspaceId} created (identities ${created.slugs.join(', ')}), owner ${email}`,
      'send the owner this link (shown once; it works once, until',
      `${new Date(created.expiresAt).toISOString()}); they choose their password there and enrol MFA:`,
      `  ${created.link}`,
    ].join('\n');
  } catch (error) {
    if (error instanceof ServiceError) throw new AdminUsageError(error.message);
    throw error;
  }
}

/** `trigger <type> [--identity slug]`: emits one event through the outbox, like `stripe trigger`. */
async function trigger(ctx: ServiceContext, args: string[]): Promise<string> {
  const [type, flag, slug, ...rest] = args;
  if (
    type === undefined ||
    (flag !== undefined && (flag !== '--identity' || slug === undefined)) ||
    rest.length
  ) {
    throw new AdminUsageError('usage: trigger <event type> [--identity slug]');
  }
  try {
    const event = await triggerEvent(ctx.db, {
      workspaceId: SANDBOX_WORKSPACE_ID,
      type,
      identity: slug,
      now: ctx.now(),
    });
    return `event ${event.id} (${event.type}) emitted for ${event.identity}`;
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'invalid_request')
      throw new AdminUsageError(error.message);
    throw error;
  }
}

export class AdminUsageError extends Error {
  override name = 'AdminUsageError';
}

function onOff(value: string | undefined, command: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new AdminUsageError(`usage: ${command} on|off`);
}

const notSeeded = () =>
  new AdminUsageError('the sandbox workspace is not seeded yet; run the seed command first');

async function setFlag(ctx: ServiceContext, flag: WorkspaceFlag, value: boolean): Promise<string> {
  if (!(await setWorkspaceFlag(ctx.db, SANDBOX_WORKSPACE_ID, flag, value))) throw notSeeded();
  return `${flag} = ${value}`;
}

/** The sandbox owner, or a usage error before the sandbox is seeded. */
async function sandboxOwner(ctx: ServiceContext) {
  const member = await getMember(ctx.db, SANDBOX_MEMBER_ID);
  if (!member) throw notSeeded();
  return member;
}

type Command = (ctx: ServiceContext, args: string[]) => Promise<string>;

const COMMANDS: Readonly<Record<string, Command>> = {
  seed: async (ctx) => {
    const result = await seedSandbox(ctx);
    if (!result.seeded) return 'the sandbox workspace already exists; nothing to do';
    return [
      `sandbox workspace ${SANDBOX_WORKSPACE_ID} created`,
      `API key (shown once): ${result.apiKey}`,
      `owner login: ${SANDBOX_EMAIL} / ${result.password}`,
      `owner TOTP secret (for an authenticator app): ${result.totpSecret}`,
    ].join('\n');
  },
  'mint-key': async (ctx, args) => {
    const scopes = args[0] ? args[0].split(',') : [...PERMISSIONS];
    const unknown = scopes.filter((scope) => !isPermission(scope));
    if (unknown.length > 0) throw new AdminUsageError(`unknown scopes: ${unknown.join(', ')}`);
    await sandboxOwner(ctx);
    const key = await insertSandboxKey(ctx.db, 'sandbox-cli', scopes, ctx.now());
    return `API key (shown once): ${key.token}`;
  },
  session: async (ctx) => {
    const { token } = await openSession(ctx, (await sandboxOwner(ctx)).id, true);
    // A state-changing session call must show it comes from the service's own origin, as a browser does.
    return [
      'stepped-up session for the sandbox owner (step-up fresh for 15 minutes, session for 12 hours);',
      'send both headers on state-changing calls:',
      `Cookie: ${SESSION_COOKIE}=${token}`,
      `Origin: ${ctx.publicAddress.origin}`,
    ].join('\n');
  },
  totp: async (ctx) => {
    const member = await getMember(ctx.db, SANDBOX_MEMBER_ID);
    if (!member?.mfa_secret_enc) throw new AdminUsageError('the sandbox owner has no MFA enrolled');
    return currentTotp(ctx.secretBox.open(member.mfa_secret_enc, member.id), ctx.now());
  },
  webhooks: (ctx, args) => setFlag(ctx, 'webhooks_enabled', onOff(args[0], 'webhooks')),
  suspend: (ctx) => setFlag(ctx, 'suspended', true),
  unsuspend: (ctx) => setFlag(ctx, 'suspended', false),
  'deletion-hold': (ctx, args) => setFlag(ctx, 'deletion_hold', onOff(args[0], 'deletion-hold')),
  trigger,
  'create-workspace': createWorkspace,
};

export const ADMIN_COMMANDS: readonly string[] = Object.keys(COMMANDS);

/**
 * The sandbox administration, as plain text answers. Runs in the server process (through the admin
 * socket) or directly on the store when no server holds the data dir.
 */
export async function runAdminCommand(ctx: ServiceContext, command: string, args: string[]): Promise<string> {
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) throw new AdminUsageError(`unknown command ${command}; commands: ${ADMIN_COMMANDS.join(', ')}`);
  return run(ctx, args);
}
