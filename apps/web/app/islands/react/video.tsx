import { VideoDialog } from "../../features/marketing/video-dialog";
import { dialogIsland } from "./dialog-island";

/** Watch Demo: the product tour. */
export const { open } = dialogIsland(VideoDialog);
