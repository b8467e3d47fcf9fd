// Moved to @gyre/ai, beside the providers whose wordings it knows; kept so imports here still work.
export { isContextOverflow } from "@gyre/ai";
