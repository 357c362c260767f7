CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status_code" integer NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE TABLE "licenses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"license_key" text NOT NULL,
	"tier" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"max_machines" integer NOT NULL,
	"features" jsonb NOT NULL,
	"expires_at" timestamp with time zone,
	"last_seen" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "machines" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"license_id" uuid NOT NULL,
	"machine_id" text NOT NULL,
	"display_id" text NOT NULL,
	"machine_name" text,
	"platform" text,
	"app_version" text,
	"is_primary" boolean DEFAULT false NOT NULL,
	"bound_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "usage_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"license_id" uuid NOT NULL,
	"machine_id" text NOT NULL,
	"feature" text DEFAULT '' NOT NULL,
	"executions" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_rollups" (
	"license_id" uuid NOT NULL,
	"day" date NOT NULL,
	"machine_id" text NOT NULL,
	"feature" text DEFAULT '' NOT NULL,
	"executions" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_rollups_license_id_day_machine_id_feature_pk" PRIMARY KEY("license_id","day","machine_id","feature")
);
--> statement-breakpoint
CREATE TABLE "validation_rollups" (
	"day" date NOT NULL,
	"license_key" text NOT NULL,
	"machine_id" text NOT NULL,
	"code" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "validation_rollups_license_key_day_machine_id_code_pk" PRIMARY KEY("license_key","day","machine_id","code")
);
--> statement-breakpoint
ALTER TABLE "licenses" ADD CONSTRAINT "licenses_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "machines" ADD CONSTRAINT "machines_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_reports" ADD CONSTRAINT "usage_reports_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_rollups" ADD CONSTRAINT "usage_rollups_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "licenses_customer_id_key" ON "licenses" USING btree ("customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "licenses_license_key_key" ON "licenses" USING btree ("license_key");--> statement-breakpoint
CREATE UNIQUE INDEX "machines_license_machine_key" ON "machines" USING btree ("license_id","machine_id");--> statement-breakpoint
CREATE INDEX "usage_reports_license_id_idx" ON "usage_reports" USING btree ("license_id","created_at");