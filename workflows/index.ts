/**
 * Every workflow the runtime worker executes. Workflow type names are wire format: never rename
 * an exported workflow once deployed.
 */
export { runWorkflow } from './run.ts';
export { webhookDeliveryWorkflow } from './webhook-delivery.ts';
export { scheduledFiringWorkflow } from './scheduled-firing.ts';
