import type { FastifyInstance, FastifyRequest } from 'fastify';
import { mintApiKey } from '../../domain/api-key.js';
import { limitBucket } from '../../domain/door-limits.js';
import { ServiceError } from '../../domain/errors.js';
import { scopesBeyondMember } from '../../domain/permissions.js';
import { limitedAddress } from '../../domain/sign-in-limits.js';
import { workspaceRefusal } from '../../domain/workspace-state.js';
import { spendGuess } from '../../http/budget-guard.js';
import { parse } from '../../http/parse.js';
import { authorize } from '../../http/policy.js';
import { insertApiKey, revokeApiKey } from '../../store/queries/api-keys.js';
import { setWorkspaceFlag } from '../../store/queries/workspaces.js';
import { acceptMemberInvite, inviteMember, listMembers, removeMember } from './members.js';
import { getAccount, getKeyHolder, listKeys } from './queries.js';
import { INVITE_GUESSES, KEYS_MINTED, keyRevocationRefusal } from './rules.js';
import { acceptInviteBody, idPath, inviteBody, mintKeyBody, workspacePatchBody } from './schemas.js';
import { type AccountRouteOptions, PUBLIC_ROUTE } from './session-routes.js';
import { refuseCrossSiteEntry, signIn } from './session-view.js';

/** Members, invites, API keys and the workspace's webhooks switch. */
export function registerWorkspaceRoutes(app: FastifyInstance, { ctx }: AccountRouteOptions) {
  /** A session or key holding the admin permission (and a fresh step-up when asked): the acting member. */
  const admin = async (request: FastifyRequest, stepUp: boolean, suspended = false) => {
    const authorized = await authorize(ctx, request, {
      permission: 'service:workspace:admin',
      stepUp,
      suspended,
    });
    const actor = await getAccount(ctx.db, authorized.principal.memberId);
    if (!actor) throw new ServiceError('unauthenticated', 'no portal session and no live API key');
    return { actor, workspace: authorized.workspace };
  };

  app.get('/v1/workspace/keys', async (request) => {
    const { workspace } = await admin(request, false);
    return { keys: await listKeys(ctx.db, workspace.id) };
  });

  app.post('/v1/workspace/keys', async (request, reply) => {
    const { actor, workspace } = await admin(request, true, true);
    const body = parse(mintKeyBody, request.body, 'body');
    const beyond = scopesBeyondMember(actor.permissions, body.scopes);
    if (beyond.length > 0)
      throw new ServiceError(
        'forbidden',
        `a key cannot carry permissions its member lacks: ${beyond.join(', ')}`,
      );
    const now = ctx.now();
    // Only a key that would be minted counts: a refused scope spends nothing.
    await spendGuess(ctx.db, [[limitBucket('keys-minted', workspace.id), KEYS_MINTED]], now);
    const minted = mintApiKey();
    const scopes = [...new Set(body.scopes)];
    await insertApiKey(ctx.db, {
      id: minted.id,
      workspace_id: workspace.id,
      member_id: actor.id,
      name: body.name,
      secret_hash: minted.secretHash,
      scopes,
      created_at: now,
      revoked_at: null,
    });
    request.log.info({ key_id: minted.id }, 'api key minted');
    return reply
      .code(201)
      .header('cache-control', 'no-store')
      .send({ id: minted.id, name: body.name, scopes, created_at: now, api_key: minted.token });
  });

  app.delete('/v1/workspace/keys/:id', async (request, reply) => {
    const { actor, workspace } = await admin(request, true);
    const { id } = parse(idPath, request.params, 'path parameters');
    // A key unknown to the workspace has no holder: it is answered 404 below.
    const holder = await getKeyHolder(ctx.db, workspace.id, id);
    const refusal = holder && keyRevocationRefusal(actor, holder);
    if (refusal) throw new ServiceError('forbidden', refusal);
    if (!(await revokeApiKey(ctx.db, workspace.id, id, ctx.now())))
      throw new ServiceError('not_found', 'no such API key');
    return reply.code(204).send();
  });

  app.get('/v1/workspace/members', async (request) => {
    const { workspace } = await admin(request, false);
    return { members: await listMembers(ctx, workspace.id) };
  });

  app.post('/v1/workspace/members', async (request, reply) => {
    const { actor } = await admin(request, true, true);
    const body = parse(inviteBody, request.body, 'body');
    const invited = await inviteMember(ctx, actor, body);
    request.log.info({ member_id: invited.member.id, invited_by: actor.id }, 'member invited');
    reply.header('cache-control', 'no-store');
    return reply.code(201).send(invited);
  });

  app.delete('/v1/workspace/members/:id', async (request, reply) => {
    const { actor } = await admin(request, true);
    const { id } = parse(idPath, request.params, 'path parameters');
    await removeMember(ctx, actor, id);
    request.log.info({ member_id: id, removed_by: actor.id }, 'member removed');
    return reply.code(204).send();
  });

  app.patch('/v1/workspace', async (request) => {
    const { workspace } = await admin(request, true);
    const body = parse(workspacePatchBody, request.body, 'body');
    // Switching deliveries off is always possible; switching them on is refused to a suspended workspace.
    const refusal = body.webhooks_enabled ? workspaceRefusal(workspace) : undefined;
    if (refusal) throw new ServiceError(refusal, 'the workspace is suspended or on hold; webhooks stay off');
    await setWorkspaceFlag(ctx.db, workspace.id, 'webhooks_enabled', body.webhooks_enabled);
    return { id: workspace.id, name: workspace.name, webhooks_enabled: body.webhooks_enabled };
  });

  app.post('/v1/invites/accept', { config: PUBLIC_ROUTE }, async (request, reply) => {
    refuseCrossSiteEntry(ctx, request, 'accepting an invite');
    const body = parse(acceptInviteBody, request.body, 'body');
    const bucket = limitBucket('invite', limitedAddress(request.ip));
    const giveBack = await spendGuess(ctx.db, [[bucket, INVITE_GUESSES]], ctx.now());
    const member = await acceptMemberInvite(ctx, body).catch(async (error: unknown) => {
      // An unknown token is a guess, and so is an address that has an account (that answer is
      // information); a right token with a weak password is not.
      const counted =
        error instanceof ServiceError && (error.code === 'not_found' || error.code === 'conflict');
      if (!counted) await giveBack();
      throw error;
    });
    await giveBack();
    request.log.info({ member_id: member.id }, 'invite accepted');
    return reply.code(201).send(await signIn(ctx, reply, member.id));
  });
}
