/**
 * The edge agent's command line (`npm run agent -- ...`). The agent itself (edge/1.0 link,
 * Docker module, listen mode) is the edge-agents capability; until it lands this entry says so
 * instead of pretending to run.
 */
const USAGE = `usage:
  npm run agent -- keygen
  npm run agent -- --hub wss://host:3000 --key FILE [--name NAME]
  npm run agent -- --listen PORT --secret SECRET`;

console.error(`edge agent: not available in this version yet (planned: the edge-agents capability)\n${USAGE}`);
process.exit(2);
