import { Modal } from "../../components/modal";
import { DEMO_VIDEO } from "./marketing-data";

/** Watch Demo: the product tour in a modal. Only metadata is preloaded; closing unmounts (and so stops) it. */
export function VideoDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Modal open={open} onClose={onClose} title="Product tour" className="max-w-4xl">
      <div className="mt-4 overflow-hidden rounded-xl border border-border bg-black">
        <video
          className="aspect-video w-full"
          src={DEMO_VIDEO.src}
          poster={DEMO_VIDEO.poster}
          preload="metadata"
          controls
          playsInline
          autoPlay
          width={1280}
          height={720}
          data-testid="demo-video"
        >
          {/* The captions are burned into the picture too, but at 375 px they are too small to read. */}
          <track kind="captions" src={DEMO_VIDEO.captions} srcLang="en" label="English" default />
        </video>
      </div>
      <p className="mt-3 text-sm text-fg-muted">
        Agents pick up tasks in their own worktrees, share what they learn, and hand finished work to you for review.{" "}
        <a href={DEMO_VIDEO.src} target="_blank" rel="noopener" className="text-accent underline underline-offset-2">
          Open the video in a new tab
        </a>
      </p>
    </Modal>
  );
}
