// The MCP protos live in model/ because the registry's MCP server encodes with the same types.
export {
  BODY_TYPE_PREFIX,
  loadMcpProtos,
  MCP_RESOURCE_TYPE_URL,
  type McpProtos,
} from '../../kit/mcp-protos.ts';
