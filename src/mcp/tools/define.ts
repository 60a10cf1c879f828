import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolDeps } from './deps.js';

/** A tool built once per handler; each request's server registers it with that request's caller. */
export interface ToolDefinition {
  name: string;
  config: { title: string; description: string; inputSchema: z.ZodObject; outputSchema: z.ZodObject; annotations: ToolAnnotations };
  run(deps: ToolDeps, args: unknown): Promise<CallToolResult>;
}

/** Builds the input and output schemas once, so a request pays only for registering them. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  name: string,
  config: { title: string; description: string; inputSchema: I; outputSchema: O; annotations: ToolAnnotations },
  run: (deps: ToolDeps, args: z.output<z.ZodObject<I>>) => Promise<CallToolResult>,
): ToolDefinition {
  return {
    name,
    config: { ...config, inputSchema: z.object(config.inputSchema), outputSchema: z.object(config.outputSchema) },
    run: (deps, args) => run(deps, args as z.output<z.ZodObject<I>>),
  };
}
