CREATE TABLE "activation_refusals" (
	"license_id" uuid NOT NULL,
	"machine_id" text NOT NULL,
	"display_id" text NOT NULL,
	"machine_name" text,
	"platform" text,
	"refused_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "activation_refusals_license_id_machine_id_pk" PRIMARY KEY("license_id","machine_id")
);
--> statement-breakpoint
CREATE TABLE "license_key_aliases" (
	"license_key" text PRIMARY KEY NOT NULL,
	"license_id" uuid NOT NULL,
	"valid_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "machine_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"license_id" uuid NOT NULL,
	"machine_id" text NOT NULL,
	"kind" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "machines" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "machines" ADD COLUMN "inactive_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "machines" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "activation_refusals" ADD CONSTRAINT "activation_refusals_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "license_key_aliases" ADD CONSTRAINT "license_key_aliases_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "machine_events" ADD CONSTRAINT "machine_events_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "machine_events_license_kind_at_idx" ON "machine_events" USING btree ("license_id","kind","at");--> statement-breakpoint
CREATE INDEX "machines_status_last_seen_idx" ON "machines" USING btree ("status","last_seen");