import type { Request, Response, Router } from 'express';
import {
  AcceptInvitationRequestSchema,
  ChangePasswordRequestSchema,
  SignInRequestSchema,
  UserEmailSchema,
} from '@switchboard/contracts';
import { AppError, parseInput } from '@switchboard/service-kit';
import { presentSession, type Sessions } from '../../domain/sessions';
import { acceptInvitation, changePassword, type UserDeps } from '../../domain/users';
import { requireCsrfToken, signedInSession } from './authenticate-caller';
import type { RateLimits } from './rate-limits';
import type { SessionCookie } from './session-cookie';
import type { SignInLimits } from './sign-in-limits';

export interface SessionRouteDeps {
  sessions: Sessions;
  userDeps: UserDeps;
  cookie: SessionCookie;
  limits: RateLimits;
  signInLimits: SignInLimits;
}

/** The email a sign-in names, for its account's attempt bucket, when it is one. */
function accountOf(req: Request): string | undefined {
  const parsed = UserEmailSchema.safeParse((req.body as { email?: unknown } | undefined)?.email);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Sign-in and invitations take JSON only. A page of another site can post a form (urlencoded,
 * multipart or text/plain) here without asking, and the answer's cookie would sign the victim's
 * browser into the attacker's account (login CSRF); a JSON body needs a CORS preflight, which
 * the gateway never grants.
 */
function requireJson(req: Request): void {
  if (!req.is('application/json')) {
    throw new AppError(
      'validation_failed',
      'The body must be JSON (Content-Type: application/json)',
      {
        httpStatus: 415,
      },
    );
  }
}

/** Sign-in, the session, sign-out, password change and invitations: the console's doors. */
export function sessionRoutes(router: Router, deps: SessionRouteDeps): void {
  const { sessions, cookie, signInLimits } = deps;

  router.post('/auth/sign-in', async (req, res) => {
    requireJson(req);
    const account = accountOf(req);
    signInLimits.refuseWhenExhausted(req, res, account);
    const { email, password } = parseInput(SignInRequestSchema, req.body ?? {});
    const signedIn = await sessions.signIn(email, password);
    if (!signedIn) {
      signInLimits.countFailure(req, email);
      throw new AppError('invalid_credentials', 'Wrong email or password');
    }
    cookie.set(res, signedIn.secret, signedIn.session);
    res.json(presentSession(signedIn.user, signedIn.session));
  });

  router.get('/auth/session', async (req, res) => {
    const { user, session } = await signedInSession(req, deps);
    res.json(presentSession(user, session));
  });

  router.post('/auth/sign-out', async (req, res) => {
    const signedIn = await signedInSession(req, deps);
    requireCsrfToken(req, signedIn);
    await sessions.end(signedIn.sessionHash);
    cookie.clear(res);
    res.json({ status: 'success', signed_out: true });
  });

  router.post('/auth/change-password', async (req: Request, res: Response) => {
    const signedIn = await signedInSession(req, deps);
    requireCsrfToken(req, signedIn);
    const request = parseInput(ChangePasswordRequestSchema, req.body ?? {});
    const email = signedIn.user.email;
    signInLimits.refuseWhenExhausted(req, res, email);
    try {
      await changePassword(
        deps.userDeps,
        { kind: 'user', user: signedIn.user, sessionHash: signedIn.sessionHash },
        request.current_password,
        request.new_password,
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_credentials') {
        signInLimits.countFailure(req, email);
      }
      throw error;
    }
    res.json({ status: 'success', password_changed: true });
  });

  router.post('/auth/accept-invitation', async (req, res) => {
    requireJson(req);
    signInLimits.refuseWhenExhausted(req, res);
    const request = parseInput(AcceptInvitationRequestSchema, req.body ?? {});
    const user = await acceptInvitation(
      deps.userDeps,
      request.invitation,
      request.password,
      request.name,
    );
    if (!user) {
      signInLimits.countFailure(req);
      throw new AppError('invalid_credentials', 'This invitation is unknown, used or expired');
    }
    const opened = await sessions.open(user);
    cookie.set(res, opened.secret, opened.session);
    res.json(presentSession(user, opened.session));
  });
}
