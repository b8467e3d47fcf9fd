import { registerApi } from "../api-registry.js";
import { streamFaux } from "./faux/stream.js";

/** Registers the stream functions of the built-in wire APIs. Called once by the package entry. */
export function registerBuiltInApis(): void {
  registerApi("faux", streamFaux);
}
