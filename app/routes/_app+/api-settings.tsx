// /api-settings: API Settings (docs/spec/screens.md; app/components/api-settings/api-settings-screen.tsx),
// admins only in loader AND action. The action is the no-JavaScript path of the screen's
// buttons: intent save | save-settings | test, the same operations as POST
// /api/credentials/save, /api/credentials/save-settings and GET /api/test/coinbase, answered
// by a redirect with a flash toast, or (a refused save) the page again with the message.
// The credentials form is a Conform form: one Zod schema (SaveCredentialsSchema) checks it in
// the browser and here, and a refusal is answered with `submission.reply()`.
import { parseWithZod } from "@conform-to/zod/v4";
import {
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
  json,
} from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { type ApiSettingsActionData, ApiSettingsScreen } from "#app/components/api-settings/api-settings-screen.tsx";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import {
  SaveCredentialsFields,
  SaveCredentialsSchema,
  credentialsIssue,
} from "#app/core/schemas/exchange-connection.ts";
import {
  coinbaseTester,
  contractSizesState,
  getCredentialsSummary,
  saveCredentialSettings,
  saveCredentials,
  testTradingCredentials,
} from "#app/services/exchange-connections.server.ts";
import { requireAdmin } from "#app/services/sessions.server.ts";
import { redirectWithToast } from "#app/utils/toast.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request, context);
  const setupOpen = new URL(request.url).searchParams.get("setup") === "1";
  // The form says before saving that saving turns "Use Coinbase contract sizes" on (issue 22).
  const contractSizesSwitch = (await contractSizesState(context.db)).switchPending;
  return json(
    { summary: await getCredentialsSummary(context.db, context.config), setupOpen, contractSizesSwitch },
    { headers: NO_STORE },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdmin(request, context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const submission = parseWithZod(form, { schema: SaveCredentialsSchema });
  // The typed secret never travels back into the page.
  const reply = (message: string) =>
    submission.reply({ formErrors: [message], hideFields: ["apiSecret", "originalApiSecret"] });
  const refused = (title: string, message: string, status = 400) =>
    json<ApiSettingsActionData>(
      {
        toast: { title, description: message, variant: "destructive" },
        formError: { title, message },
        result: reply(message),
      },
      { status, headers: NO_STORE },
    );

  if (intent === "save") {
    if (submission.status !== "success") {
      // The rules of docs/spec/api.md#validation (credentialsIssue) name the title; the schema ran them already.
      const issue = credentialsIssue(SaveCredentialsFields.parse(Object.fromEntries(form)));
      return refused(issue?.title ?? "Save Failed", issue?.message ?? "Invalid credentials");
    }
    // A checkbox: absent means off (the schema's default, true, is the API's).
    const outcome = await saveCredentials(
      context.db,
      context.config,
      { ...submission.value, sandbox: form.get("sandbox") === "on" },
      user.username,
    );
    if (!outcome.success) return refused(outcome.title, outcome.error, outcome.status);
    return redirectWithToast(
      context,
      "/api-settings",
      { title: "Credentials Saved", description: outcome.message },
      { headers: NO_STORE },
    );
  }

  if (intent === "save-settings") {
    const outcome = await saveCredentialSettings(
      context.db,
      context.config,
      form.get("sandbox") === "on",
      user.username,
    );
    if (!outcome.success) return refused(outcome.title, outcome.error, outcome.status);
    return redirectWithToast(
      context,
      "/api-settings",
      { title: "Settings Saved", description: outcome.message },
      { headers: NO_STORE },
    );
  }

  if (intent === "test") {
    const outcome = await testTradingCredentials(
      context.db,
      context.config,
      user.username,
      coinbaseTester(context.db),
    ).catch((error: Error) => {
      console.warn(`testing the credentials failed: ${error.message}`);
      return null;
    });
    const toast = !outcome
      ? { title: "Connection Test Error", description: "Failed to test connection", variant: "destructive" as const }
      : outcome.success
        ? { title: "Connection Successful", description: outcome.message }
        : { title: "Connection Test Failed", description: outcome.message, variant: "destructive" as const };
    return redirectWithToast(context, "/api-settings", toast, { headers: NO_STORE });
  }

  return json({ error: "Unknown action" }, { status: 400, headers: NO_STORE });
}

export const headers: HeadersFunction = () => NO_STORE;

export default function Page() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <ApiSettingsScreen
      summary={data.summary}
      setupOpen={data.setupOpen}
      contractSizesSwitch={data.contractSizesSwitch}
      actionData={actionData && "formError" in actionData ? (actionData as ApiSettingsActionData) : undefined}
    />
  );
}

export const meta: MetaFunction = () => [{ title: "API Settings · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
