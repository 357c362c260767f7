import { SignupDialog } from "../../features/signup/signup-dialog";
import { dialogIsland } from "./dialog-island";

/** The early-access form (spec sections 2–5), exactly as the portal shows it. */
export const { open } = dialogIsland(SignupDialog);
