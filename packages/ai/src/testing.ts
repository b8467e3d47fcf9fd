/**
 * @gyre/ai/testing — helpers for tests and demos: the scripted faux model.
 * Importing this entry also registers the built-in APIs.
 */
import "./index.js";

export {
  createFauxModel,
  type FauxBlock,
  type FauxModel,
  type FauxOptions,
  type FauxResponse,
  type FauxScriptItem,
  streamFaux,
} from "./providers/faux/stream.js";
