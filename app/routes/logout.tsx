// POST /logout: ends the session server-side, clears the cookie, says so with a toast.
import { type ActionFunctionArgs, redirect } from "@remix-run/node";
import { recordLogout } from "#app/services/activity-logs.server.ts";
import { endSession, getUser } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";

export async function loader() {
  return redirect("/");
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await getUser(request, context);
  const cookie = await endSession(request, context);
  if (user) {
    await recordLogout(context.db, user.username);
  }
  return redirectWithToast(
    context,
    "/login",
    { title: "Logged Out", description: "You have been successfully logged out" },
    { headers: { "Set-Cookie": cookie } },
  );
}
