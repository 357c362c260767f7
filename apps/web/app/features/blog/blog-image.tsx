import { MESSAGES } from "@flotilla/contracts";
import { ImageOff } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { responsiveSrcSet } from "../../lib/responsive-image";

/** A post's cover; when it fails to load, a 'Blog Image Coming Soon' placeholder takes its place. */
export function BlogImage({
  src,
  alt,
  eager = false,
  sizes = "100vw",
  className = "",
}: {
  src: string;
  alt: string;
  eager?: boolean;
  /** The width the cover is shown at, for picking from its srcset. */
  sizes?: string;
  className?: string;
}) {
  const [failed, setFailed] = useState(false);
  const ref = useRef<HTMLImageElement>(null);
  useEffect(() => {
    const img = ref.current;
    // A cover that failed before hydration never fires onError again.
    if (img?.complete && img.naturalWidth === 0) setFailed(true);
  }, []);

  // Both are in the markup, one hidden: React switches them by state, and on a prerendered page the
  // blog-image island does (app/islands/blog-image.ts).
  return (
    <>
      <img
        ref={ref}
        src={src}
        srcSet={responsiveSrcSet(src)}
        sizes={sizes}
        alt={alt}
        width={1200}
        height={630}
        loading={eager ? "eager" : "lazy"}
        fetchPriority={eager ? "high" : undefined}
        decoding="async"
        onError={() => setFailed(true)}
        hidden={failed}
        data-island="blog-image"
        className={`aspect-[1200/630] w-full bg-bg-subtle object-cover ${className}`}
      />
      <div
        role="img"
        aria-label={`${alt} (${MESSAGES.blogImagePlaceholder})`}
        hidden={!failed}
        className={`flex aspect-[1200/630] flex-col items-center justify-center gap-2 bg-gradient-to-br from-sky-500/15 to-indigo-500/20 text-fg-muted ${className}`}
      >
        <ImageOff className="size-6" aria-hidden="true" />
        <span className="text-sm font-medium">{MESSAGES.blogImagePlaceholder}</span>
      </div>
    </>
  );
}
