/**
 * The React islands render with Preact's React-compatible API (vite.islands.config.ts aliases react and react-dom;
 * decision 0050). One difference matters to a dialog opened by a tap: React runs the effects of a render caused by
 * a click before the click's task ends (the dialog's showModal() is an effect), Preact a frame later. Running
 * Preact's effects in a microtask after each render gives the React timing, so the dialog is up in the tap's task.
 * Import this first in every React island.
 */
import { options } from "preact";

options.requestAnimationFrame = (flushEffects) => queueMicrotask(flushEffects);
