/**
 * The early-access signup modal (spec sections 2–5). Loaded on first open only (lazy-signup-dialog in the portal, an
 * island on content pages). The contracts' zod schema validates on submit and is loaded after the form is up, so a
 * tap that opens the form does not wait for it.
 */
import { BRAND } from "@flotilla/contracts/brand";
import { SIGNUP_UI } from "@flotilla/contracts/messages";
import {
  AI_EXPERIENCE_OPTIONS,
  INTEREST_OPTIONS,
  optionValue,
  PLATFORM_OPTIONS,
  ROLE_OPTIONS,
  type SignupFields,
} from "@flotilla/contracts/signup-options";
import { MODAL_RESET_DELAY_MS, SIGNUP_SUCCESS_PAUSE_MS } from "@flotilla/contracts/timings";
import { CircleAlert, CircleCheck, Loader2 } from "lucide-react";
import { type FormEvent, type ReactNode, useCallback, useEffect, useId, useRef, useState } from "react";
import { buttonClass } from "../../components/button";
import { Modal } from "../../components/modal";
import { signupErrorMessage, submitSignup } from "./api";
import { DEFAULT_VALUES, FIELD_ORDER, type SignupFormValues, toSignupRequest } from "./form";

export interface SignupDialogProps {
  open: boolean;
  onClose: () => void;
}

type Status = "form" | "submitting" | "success";

type Validate = typeof import("@flotilla/contracts/signup")["validateSignup"];
let validation: Promise<Validate> | null = null;
/** The schema, once; a failed load is forgotten (the server validates with the same schema anyway). */
function loadValidation(): Promise<Validate> {
  validation ??= import("@flotilla/contracts/signup").then(
    (module) => module.validateSignup,
    (error) => {
      validation = null;
      throw error;
    },
  );
  return validation;
}
type FieldErrors = Partial<Record<SignupFields, string>>;

const FORM_TITLE = "Get Early Access";

const inputClass =
  "h-11 w-full rounded-lg border border-border bg-bg px-3 text-base text-fg shadow-xs outline-none transition-colors placeholder:text-fg-muted/70 focus:border-sky-500 focus:ring-3 focus:ring-sky-500/20 aria-invalid:border-red-500 aria-invalid:focus:ring-red-500/20 disabled:opacity-60 sm:text-sm";

export function SignupDialog({ open, onClose }: SignupDialogProps) {
  const [values, setValues] = useState<SignupFormValues>(DEFAULT_VALUES);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>("form");
  const id = useId();
  const controls = useRef<Partial<Record<SignupFields, HTMLElement | null>>>({});
  const closeButton = useRef<HTMLButtonElement>(null);
  const resetTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const inFlight = useRef<AbortController | null>(null);
  /** A submit is waiting for the schema: a second one is ignored, as while submitting. */
  const checking = useRef(false);

  const submitting = status === "submitting";
  const succeeded = status === "success";

  const reset = useCallback(() => {
    setValues(DEFAULT_VALUES);
    setErrors({});
    setServerError(null);
    setStatus("form");
  }, []);

  // Spec: after closing, the form resets to defaults after 300 ms (the dialog is gone by then, so the
  // reset is never seen). Reopening within those 300 ms cancels it: the visitor gets their answers back.
  useEffect(() => {
    clearTimeout(resetTimer.current);
    resetTimer.current = undefined;
    if (open) return;
    resetTimer.current = setTimeout(() => {
      resetTimer.current = undefined;
      reset();
    }, MODAL_RESET_DELAY_MS);
  }, [open, reset]);

  // Unmount: stop timers and any request or success pause still running.
  useEffect(
    () => () => {
      clearTimeout(resetTimer.current);
      inFlight.current?.abort();
    },
    [],
  );

  // The schema is fetched once the form is up, so the first submit does not wait for it.
  useEffect(() => {
    if (!open) return;
    const timer = setTimeout(() => void loadValidation().catch(() => undefined), 0);
    return () => clearTimeout(timer);
  }, [open]);

  // Focus: the email field when the form opens, the Close button when the success view appears.
  useEffect(() => {
    if (!open) return;
    if (succeeded) closeButton.current?.focus();
    else controls.current.email?.focus();
  }, [open, succeeded]);

  const requestClose = useCallback(() => {
    if (!submitting) onClose();
  }, [submitting, onClose]);

  function update<K extends keyof SignupFormValues>(field: K, value: SignupFormValues[K]) {
    setValues((previous) => ({ ...previous, [field]: value }));
    // Spec: a field's error clears when that field is edited.
    setErrors((previous) => {
      if (!(field in previous)) return previous;
      const { [field as SignupFields]: _cleared, ...rest } = previous;
      return rest;
    });
  }

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (submitting || succeeded || checking.current) return;
    const body = toSignupRequest(values);
    checking.current = true;
    // Without the schema (it could not be fetched), the server's answer is the check.
    const found = await loadValidation()
      .then((validate) => validate(body))
      .catch(() => ({}) as FieldErrors)
      .finally(() => {
        checking.current = false;
      });
    setErrors(found);
    setServerError(null);
    const firstInvalid = FIELD_ORDER.find((field) => found[field]);
    if (firstInvalid) {
      controls.current[firstInvalid]?.focus();
      return;
    }

    const controller = new AbortController();
    inFlight.current = controller;
    setStatus("submitting");
    try {
      await submitSignup(body, controller.signal);
      // Spec: a 1.5 s pause after the response before the success view appears.
      await pause(SIGNUP_SUCCESS_PAUSE_MS, controller.signal);
      setStatus("success");
    } catch (error) {
      if (controller.signal.aborted) return;
      setServerError(signupErrorMessage(error));
      setStatus("form");
    } finally {
      if (inFlight.current === controller) inFlight.current = null;
    }
  }

  const fieldId = (field: SignupFields) => `${id}-${field}`;
  const errorId = (field: SignupFields) => `${id}-${field}-error`;
  const invalidProps = (field: SignupFields) => ({
    "aria-invalid": errors[field] ? true : undefined,
    "aria-describedby": errors[field] ? errorId(field) : undefined,
  });
  const bind = (field: SignupFields) => (element: HTMLElement | null) => {
    controls.current[field] = element;
  };
  const listedErrors = FIELD_ORDER.flatMap((field) => (errors[field] ? [{ field, message: errors[field] }] : []));

  return (
    <Modal
      open={open}
      onClose={requestClose}
      closeDisabled={submitting}
      title={succeeded ? SIGNUP_UI.successTitle : FORM_TITLE}
      hideTitle={succeeded}
      className="max-w-xl"
    >
      {succeeded ? (
        <div className="pt-4 pb-2 text-center" data-testid="signup-success">
          <span className="mx-auto inline-flex size-14 items-center justify-center rounded-full bg-emerald-500/15 text-emerald-600 dark:text-emerald-400">
            <CircleCheck className="size-8" aria-hidden="true" />
          </span>
          {/* The dialog's (visually hidden) heading already says this to assistive tech. */}
          <p className="mt-5 text-2xl font-semibold tracking-tight" aria-hidden="true">
            {SIGNUP_UI.successTitle}
          </p>
          <p className="mx-auto mt-3 max-w-sm text-fg-muted">
            Thanks{firstName(values.name) ? `, ${firstName(values.name)}` : ""}! Your spot in the {BRAND.name}{" "}
            early-access programme is saved. We'll email{" "}
            <span className="font-medium wrap-anywhere text-fg">{values.email.trim()}</span> as soon as your invitation
            is ready.
          </p>
          {values.newsletter && (
            <p className="mx-auto mt-2 max-w-sm text-sm text-fg-muted">
              To get our newsletter, confirm your subscription with the link we've emailed you. It starts once you
              confirm, and every issue has an unsubscribe link.
            </p>
          )}
          <button
            ref={closeButton}
            type="button"
            onClick={onClose}
            className={buttonClass("primary", "md", "mt-8 w-full sm:w-auto sm:min-w-36")}
          >
            Close
          </button>
        </div>
      ) : (
        <>
          <p className="mt-2 pr-8 text-sm text-fg-muted">
            The {BRAND.name} macOS beta opens in waves. Tell us a little about how you work and we'll send your
            invitation.
          </p>
          <form noValidate onSubmit={handleSubmit} className="mt-6" aria-busy={submitting}>
            <fieldset disabled={submitting} className="space-y-5">
              <div className="grid gap-5 sm:grid-cols-2">
                <Field label="Email" htmlFor={fieldId("email")} error={errors.email} errorId={errorId("email")}>
                  <input
                    ref={bind("email")}
                    id={fieldId("email")}
                    name="email"
                    type="email"
                    autoComplete="email"
                    inputMode="email"
                    placeholder="you@company.com"
                    value={values.email}
                    onChange={(event) => update("email", event.target.value)}
                    className={inputClass}
                    {...invalidProps("email")}
                  />
                </Field>
                <Field label="Name" htmlFor={fieldId("name")} error={errors.name} errorId={errorId("name")}>
                  <input
                    ref={bind("name")}
                    id={fieldId("name")}
                    name="name"
                    type="text"
                    autoComplete="name"
                    placeholder="Ada Lovelace"
                    value={values.name}
                    onChange={(event) => update("name", event.target.value)}
                    className={inputClass}
                    {...invalidProps("name")}
                  />
                </Field>
                <Field
                  label="Company"
                  optional
                  htmlFor={fieldId("company")}
                  error={errors.company}
                  errorId={errorId("company")}
                >
                  <input
                    ref={bind("company")}
                    id={fieldId("company")}
                    name="company"
                    type="text"
                    autoComplete="organization"
                    placeholder="Acme Inc."
                    value={values.company}
                    onChange={(event) => update("company", event.target.value)}
                    className={inputClass}
                    {...invalidProps("company")}
                  />
                </Field>
                <Field label="Role" htmlFor={fieldId("role")} error={errors.role} errorId={errorId("role")}>
                  <select
                    ref={bind("role")}
                    id={fieldId("role")}
                    name="role"
                    value={values.role}
                    onChange={(event) => update("role", event.target.value)}
                    className={`${inputClass} ${values.role ? "" : "text-fg-muted"}`}
                    {...invalidProps("role")}
                  >
                    <option value="">Select your role</option>
                    {ROLE_OPTIONS.map((role) => (
                      <option key={role} value={role} className="text-fg">
                        {role}
                      </option>
                    ))}
                  </select>
                </Field>
              </div>

              <ChoiceGroup
                legend="AI experience"
                name="ai_experience"
                options={AI_EXPERIENCE_OPTIONS}
                value={values.ai_experience}
                onChange={(value) => update("ai_experience", value)}
                error={errors.ai_experience}
                errorId={errorId("ai_experience")}
                firstRef={bind("ai_experience")}
              />

              <ChoiceGroup
                legend="Preferred platform"
                name="platform"
                options={PLATFORM_OPTIONS}
                value={values.platform}
                onChange={(value) => update("platform", value)}
                error={errors.platform}
                errorId={errorId("platform")}
                firstRef={bind("platform")}
              />

              <fieldset aria-describedby={errors.interests ? errorId("interests") : undefined}>
                <legend className="text-sm font-medium">
                  Interests <span className="font-normal text-fg-muted">(optional)</span>
                </legend>
                <div className="mt-2 grid grid-cols-1 gap-2 min-[420px]:grid-cols-2">
                  {INTEREST_OPTIONS.map((interest, index) => {
                    const checked = values.interests.includes(interest);
                    return (
                      <label
                        key={interest}
                        className={`flex cursor-pointer items-center gap-2.5 rounded-lg border px-3 py-2 text-sm transition-colors has-focus-visible:ring-2 has-focus-visible:ring-sky-500/40 ${
                          checked ? "border-sky-500/70 bg-sky-500/10" : "border-border hover:bg-bg-subtle"
                        }`}
                      >
                        <input
                          ref={index === 0 ? bind("interests") : undefined}
                          type="checkbox"
                          name="interests"
                          value={interest}
                          checked={checked}
                          onChange={(event) =>
                            update(
                              "interests",
                              event.target.checked
                                ? [...values.interests, interest]
                                : values.interests.filter((item) => item !== interest),
                            )
                          }
                          className="size-4 shrink-0 accent-sky-600 dark:accent-sky-400"
                        />
                        {interest}
                      </label>
                    );
                  })}
                </div>
                <FieldMessage id={errorId("interests")} message={errors.interests} />
              </fieldset>

              <label className="flex cursor-pointer items-start gap-3 rounded-lg border border-border bg-bg-subtle/60 p-3 text-sm">
                <input
                  ref={bind("newsletter")}
                  type="checkbox"
                  name="newsletter"
                  checked={values.newsletter}
                  onChange={(event) => update("newsletter", event.target.checked)}
                  className="mt-0.5 size-4 shrink-0 accent-sky-600 dark:accent-sky-400"
                />
                <span>
                  <span className="font-medium">Subscribe to the newsletter</span>{" "}
                  <span className="block text-fg-muted">
                    Release notes and beta news. No spam, unsubscribe anytime.
                  </span>
                </span>
              </label>
            </fieldset>

            <div className="mt-6 space-y-3">
              {(listedErrors.length > 0 || serverError) && (
                <div
                  role="alert"
                  data-testid="signup-errors"
                  className="flex gap-2.5 rounded-lg border border-red-500/30 bg-red-500/10 p-3 text-sm text-red-700 dark:text-red-300"
                >
                  <CircleAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
                  {serverError ? (
                    <p>{serverError}</p>
                  ) : (
                    <ul className="space-y-0.5">
                      {listedErrors.map(({ field, message }) => (
                        <li key={field}>{message}</li>
                      ))}
                    </ul>
                  )}
                </div>
              )}
              <button type="submit" disabled={submitting} className={buttonClass("primary", "lg", "w-full")}>
                {submitting && <Loader2 className="size-4 animate-spin" aria-hidden="true" />}
                {submitting ? SIGNUP_UI.submitting : "Secure My Spot"}
              </button>
              <p className="text-center text-xs text-fg-muted">
                We only use your answers to plan the beta. Free while in early access.
              </p>
            </div>
          </form>
        </>
      )}
    </Modal>
  );
}

function Field({
  label,
  optional,
  htmlFor,
  error,
  errorId,
  children,
}: {
  label: string;
  optional?: boolean;
  htmlFor: string;
  error: string | undefined;
  errorId: string;
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={htmlFor} className="mb-1.5 block text-sm font-medium">
        {label}
        {optional && <span className="font-normal text-fg-muted"> (optional)</span>}
      </label>
      {children}
      <FieldMessage id={errorId} message={error} />
    </div>
  );
}

function FieldMessage({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="mt-1.5 text-sm text-red-600 dark:text-red-400">
      {message}
    </p>
  );
}

function ChoiceGroup({
  legend,
  name,
  options,
  value,
  onChange,
  error,
  errorId,
  firstRef,
}: {
  legend: string;
  name: string;
  options: readonly { label: string; description: string }[];
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  errorId: string;
  firstRef: (element: HTMLElement | null) => void;
}) {
  const legendId = useId();
  return (
    <fieldset>
      <legend id={legendId} className="text-sm font-medium">
        {legend}
      </legend>
      <div
        role="radiogroup"
        aria-labelledby={legendId}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        className="mt-2 grid grid-cols-1 gap-2 min-[420px]:grid-cols-2"
      >
        {options.map((option, index) => {
          const optionId = optionValue(option);
          const checked = value === optionId;
          return (
            <label
              key={option.label}
              className={`flex cursor-pointer items-start gap-3 rounded-xl border p-3 transition-colors has-focus-visible:ring-2 has-focus-visible:ring-sky-500/40 ${
                checked
                  ? "border-sky-500/70 bg-sky-500/10"
                  : error
                    ? "border-red-500/50 hover:bg-bg-subtle"
                    : "border-border hover:bg-bg-subtle"
              }`}
            >
              <input
                ref={index === 0 ? firstRef : undefined}
                type="radio"
                name={name}
                value={optionId}
                checked={checked}
                onChange={() => onChange(optionId)}
                className="mt-0.5 size-4 shrink-0 accent-sky-600 dark:accent-sky-400"
              />
              <span className="min-w-0">
                <span className="block text-sm font-medium">{option.label}</span>{" "}
                <span className="block text-xs text-fg-muted">{option.description}</span>
              </span>
            </label>
          );
        })}
      </div>
      <FieldMessage id={errorId} message={error} />
    </fieldset>
  );
}

function firstName(name: string): string {
  return name.trim().split(/\s+/)[0] ?? "";
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
