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
