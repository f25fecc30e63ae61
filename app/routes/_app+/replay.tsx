// /replay: the what-if replay of the trader's own alerts (docs/spec/screens.md Replay,
// docs/decisions/047-replay.md). Every signed-in role may use it: it reads and writes nothing
// (docs/spec/roles.md). The form posts to this route's action, which replays and renders the
// results, with or without JavaScript; POST /api/replay answers the same as JSON.
import { parseWithZod } from "@conform-to/zod/v4";
import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, json } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { GeneralErrorBoundary } from "#app/components/error-boundary.tsx";
import { ReplayScreen } from "#app/components/replay/replay-screen.tsx";
import { type ReplayRequest, ReplayRequestSchema } from "#app/core/schemas/replay.ts";
import { ReplayInputError, type ReplayResult, replayFormData, runReplay } from "#app/services/replay.server.ts";
import { requireUser } from "#app/services/sessions.server.ts";
import { NO_STORE } from "#app/utils/api.server.ts";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return json(await replayFormData(context.db), { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireUser(request, context);
  const submission = parseWithZod(await request.formData(), { schema: ReplayRequestSchema });
  if (submission.status !== "success") {
    // The values as posted (strings), so a browser without JavaScript gets its own entries back.
    return json(
      { result: submission.reply(), values: submission.payload as unknown as ReplayRequest, replay: null },
      { status: 400, headers: NO_STORE },
    );
  }
  let replay: ReplayResult;
  try {
    replay = await runReplay(context.db, submission.value);
  } catch (error) {
    if (!(error instanceof ReplayInputError)) throw error;
    return json(
      {
        result: submission.reply({ fieldErrors: { strategy: [error.message] } }),
        values: submission.value,
        replay: null,
      },
      { status: 400, headers: NO_STORE },
    );
  }
  return json({ result: submission.reply(), values: submission.value as ReplayRequest, replay }, { headers: NO_STORE });
}

export default function Page() {
  const data = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  // After a post the form shows what was replayed (a failed check keeps the browser's own values: Conform's reply).
  const values = (answer?.values ?? data.defaults) as ReplayRequest;
  return (
    <ReplayScreen
      key={answer?.replay ? `${answer.replay.period.from}|${answer.replay.tookMs}` : "form"}
      values={values}
      strategies={data.strategies}
      lastResult={answer?.result}
      replay={(answer?.replay ?? null) as ReplayResult | null}
    />
  );
}

export const meta: MetaFunction = () => [{ title: "Replay · PerpDesk" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
