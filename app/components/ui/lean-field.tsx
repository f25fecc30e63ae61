// MUI's outlined TextField (size small, label always shrunk) as plain elements with lean
// classes, for forms on server-rendered screens: an MUI TextField is six styled components,
// which made the Dashboard's order form the page's most expensive part to render
// (docs/benchmarks.md, "Pages (T5)"). Focus, hover, error and disabled looks are CSS
// (:focus-within, :hover, a class), so they need no JavaScript; `select` renders a native
// <select>, as the app's forms already do so that they work without JavaScript.
import { type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, useId } from "react";
import { cls } from "./lean.tsx";
import { F, FOCUS } from "./lean-field.css.ts";

interface Common {
  label: string;
  error?: boolean;
  helperText?: ReactNode;
  fullWidth?: boolean;
  className?: string;
  /** Something at the input's end (MUI's endAdornment), e.g. a copy button. */
  endAdornment?: ReactNode;
}

type LeanTextFieldProps = Common &
  (
    | ({ select?: false } & Omit<InputHTMLAttributes<HTMLInputElement>, "className">)
    | ({ select: true; children: ReactNode } & Omit<SelectHTMLAttributes<HTMLSelectElement>, "className">)
  );

/** An outlined, small MUI TextField with its label shrunk; `select` for a native select. */
export function LeanTextField(props: LeanTextFieldProps) {
  const { label, error, helperText, fullWidth, className, endAdornment, select, ...control } = props;
  const autoId = useId();
  const id = control.id ?? autoId;
  const helperId = helperText ? `${id}-helper-text` : undefined;
  const shared = { id, "aria-invalid": Boolean(error), "aria-describedby": helperId };
  return (
    <div className={cls(F.root, FOCUS.root, fullWidth && F.fullWidth, error && F.error, control.disabled && F.disabled, className)}>
      <label className={F.label} htmlFor={id} id={`${id}-label`}>
        {label}
      </label>
      <div className={cls(F.base, endAdornment ? F.withEnd : undefined)}>
        {select ? (
          <>
            <select {...(control as SelectHTMLAttributes<HTMLSelectElement>)} {...shared} className={cls(F.input, F.select)} />
            <svg className={F.selectIcon} focusable="false" aria-hidden="true" viewBox="0 0 24 24">
              <path d="M7 10l5 5 5-5z" />
            </svg>
          </>
        ) : (
          <input type="text" {...(control as InputHTMLAttributes<HTMLInputElement>)} {...shared} className={cls(F.input, endAdornment ? F.inputWithEnd : undefined)} />
        )}
        {endAdornment}
        <fieldset aria-hidden="true" className={F.outline}>
          <legend className={F.legend}>
            <span>{label}</span>
          </legend>
        </fieldset>
      </div>
      {helperText ? (
        <p className={F.helper} id={helperId}>
          {helperText}
        </p>
      ) : null}
    </div>
  );
}
