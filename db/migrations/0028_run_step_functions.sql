-- The run path's steps as server-side functions (docs/decisions/cost-per-run.md). Each function's
-- source lives beside the verb that calls it; test/integration/step-functions.test.ts checks that
-- the newest migration defining it carries that source.
-- One product event appended, as appendProductEvent (append.ts) and the run steps' functions
-- append it: the project's next position and the aggregate's next sequence from their counter
-- rows (the project counter's row lock is held to the end of the transaction, so positions are
-- gap-free and commit-ordered; see append.ts), the event row, and the commit-time wake-up hint.
-- `p_id` null: a fresh random id.
create or replace function svc_append_product_event(
  p_organization_id uuid, p_project_id uuid, p_aggregate_type text, p_aggregate_id uuid, p_kind text,
  p_public_payload jsonb, p_message jsonb, p_session_id uuid, p_occurred_at timestamptz, p_id uuid
) returns table (id uuid, project_position bigint, aggregate_id uuid, aggregate_sequence integer)
language plpgsql volatile as $$
#variable_conflict use_column
declare
  v_position bigint;
  v_sequence integer;
begin
  insert into project_event_counters as c (project_id, organization_id, last_position)
  values (p_project_id, p_organization_id, 1)
  on conflict (project_id) do update set last_position = c.last_position + 1
  returning c.last_position into v_position;

  insert into aggregate_event_counters as a (project_id, aggregate_type, aggregate_id, last_sequence)
  values (p_project_id, p_aggregate_type, p_aggregate_id, 1)
  on conflict (project_id, aggregate_type, aggregate_id) do update set last_sequence = a.last_sequence + 1
  returning a.last_sequence into v_sequence;

  return query
    insert into product_events as e (id, organization_id, project_id, project_position, aggregate_type, aggregate_id,
                                     aggregate_sequence, kind, public_payload, message, session_id, occurred_at)
    values (coalesce(p_id, gen_random_uuid()), p_organization_id, p_project_id, v_position, p_aggregate_type,
            p_aggregate_id, v_sequence, p_kind, p_public_payload, p_message, p_session_id, p_occurred_at)
    returning e.id, e.project_position, e.aggregate_id, e.aggregate_sequence;

  perform pg_notify('svc_product_events', p_project_id::text);
end
$$;
--> statement-breakpoint
-- Admission's common case in one statement (admit.ts, admitRun): the run locked; a settled run
-- reports its state; a run already running is admitted again unchanged (an activity retry); a
-- queued run with no cancellation requested and a free place in its project's running-runs limit
-- (`p_running_limit`; null: no limit) becomes running, with its session's status and the
-- `run.running` event. Everything else (a cancellation before the start, no free place) returns
-- `fallback` having written nothing, and admitRun's transaction decides it.
--
-- A function rather than one statement of CTEs: the count of held places must see every
-- admission committed before this one took the project's admission lock, and under READ
-- COMMITTED only a statement that starts after the lock has such a snapshot (each statement of
-- a volatile function takes its own).
create or replace function svc_admit_run(p_run_id uuid, p_running_limit integer, p_now timestamptz)
returns jsonb
language plpgsql volatile as $$
declare
  v_run runs%rowtype;
  v_config jsonb;
  v_held integer;
  v_moved boolean := false;
begin
  select * into v_run from runs where id = p_run_id for update;
  if not found then
    return null;
  end if;
  if v_run.state in ('completed', 'failed', 'cancelled', 'timed_out') then
    return jsonb_build_object('kind', 'settled', 'state', v_run.state);
  end if;
  if v_run.state = 'queued' then
    if v_run.cancellation_requested_at is not null then
      return jsonb_build_object('kind', 'fallback');
    end if;
    if p_running_limit is not null then
      -- admission-gate.ts: lockProjectAdmissions (RUN_ADMISSION_LOCK), then countPlaceHolders.
      perform pg_advisory_xact_lock(7240003, hashtext(v_run.project_id::text));
      select count(*) into v_held from (
        select 1 from runs holder
        where holder.project_id = v_run.project_id and holder.state = 'running'
          and not exists (
            select 1 from tool_calls tc
            join delegation_calls dc on dc.tool_call_id = tc.id
            join runs child on child.id = dc.child_run_id
            where tc.run_id = holder.id and child.state not in ('completed', 'failed', 'cancelled', 'timed_out'))
        limit p_running_limit
      ) up_to_limit;
      if v_held >= p_running_limit then
        return jsonb_build_object('kind', 'fallback');
      end if;
    end if;
    update runs set state = 'running', admitted_at = coalesce(admitted_at, p_now), updated_at = p_now where id = p_run_id;
    update sessions set status = 'running', last_activity_at = p_now where latest_run_id = p_run_id;
    perform svc_append_product_event(v_run.organization_id, v_run.project_id, 'run', v_run.id, 'run.running',
      jsonb_build_object('runId', v_run.id, 'sessionId', v_run.session_id, 'state', 'running', 'previousState', 'queued'),
      null, v_run.session_id, p_now, null);
    v_moved := true;
  end if;
  select config into v_config from agent_versions where id = v_run.agent_version_id;
  return jsonb_build_object(
    'kind', 'admitted',
    'moved', v_moved,
    'firstAdmission', v_moved and v_run.admitted_at is null,
    'createdAt', v_run.created_at,
    'sessionId', v_run.session_id,
    'config', jsonb_build_object('limits', v_config -> 'limits', 'sandbox', v_config -> 'sandbox'),
    'wallDeadlineAt', v_run.wall_deadline_at,
    'cancellationRequested', v_run.cancellation_requested_at is not null);
end
$$;
