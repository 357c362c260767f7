import type { SignupRequest } from "@flotilla/contracts/signup";
import { joinInterests, type SignupFields } from "@flotilla/contracts/signup-options";

/** What the form holds; interests stay a list until they are sent. */
export interface SignupFormValues {
  email: string;
  name: string;
  company: string;
  role: string;
  ai_experience: string;
  platform: string;
  interests: string[];
  newsletter: boolean;
}

export const DEFAULT_VALUES: SignupFormValues = {
  email: "",
  name: "",
  company: "",
  role: "",
  ai_experience: "",
  platform: "",
  interests: [],
  newsletter: true,
};

/** The order errors are listed in (the order of the fields on screen). */
export const FIELD_ORDER: readonly SignupFields[] = [
  "email",
  "name",
  "company",
  "role",
  "ai_experience",
  "platform",
  "interests",
  "newsletter",
];

/** The request body, in the spec's field order, with interests comma-joined. */
export function toSignupRequest(values: SignupFormValues): SignupRequest {
  return {
    email: values.email.trim(),
    name: values.name.trim(),
    company: values.company.trim(),
    role: values.role,
    ai_experience: values.ai_experience,
    platform: values.platform,
    interests: joinInterests(values.interests),
    newsletter: values.newsletter,
  };
}
