export interface Heading {
  depth: 2 | 3;
  id: string;
  text: string;
}

export interface RenderedPage {
  title: string;
  description: string;
  html: string;
  headings: Heading[];
}

export interface Section {
  id: string;
  heading: string;
  text: string;
}
