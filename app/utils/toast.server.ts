// One-shot toasts carried across a redirect in a signed flash cookie (works without JS).
import { redirect } from "@remix-run/node";
import type { AppLoadContext } from "@remix-run/node";
import { type Toast, ToastSchema } from "#app/core/schemas/toast.ts";
import { flashCookie, secureCookies } from "./session.server.ts";

export async function createToastHeaders(context: AppLoadContext, toast: Toast): Promise<Headers> {
  const value = ToastSchema.parse(toast);
  return new Headers({
    "Set-Cookie": await flashCookie(context).serialize(value, { secure: secureCookies(context) }),
  });
}

export async function redirectWithToast(
  context: AppLoadContext,
  url: string,
  toast: Toast,
  init: ResponseInit = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  for (const cookie of (await createToastHeaders(context, toast)).getSetCookie()) headers.append("Set-Cookie", cookie);
  return redirect(url, { ...init, headers });
}

/** Reads the flash toast (if any) and the header that clears it. */
export async function getToast(
  request: Request,
  context: AppLoadContext,
): Promise<{ toast: Toast | null; headers: Headers | null }> {
  const raw = await flashCookie(context).parse(request.headers.get("Cookie"));
  const parsed = ToastSchema.safeParse(raw);
  if (!raw) return { toast: null, headers: null };
  const headers = new Headers({
    "Set-Cookie": await flashCookie(context).serialize("", {
      secure: secureCookies(context),
      maxAge: 0,
      expires: new Date(0),
    }),
  });
  return { toast: parsed.success ? parsed.data : null, headers };
}
