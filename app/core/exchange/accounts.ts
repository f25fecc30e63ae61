// Profiles (sub-accounts) and reports: the part of an exchange account SPEC's Profiles and
// Reports screens show. Two providers implement these: the simulator's paper profiles and
// locally built reports, and the Coinbase Exchange API (HMAC + passphrase) when a
// passphrase-bearing key is configured. Amounts are decimal strings.
import type { Balance } from "./types.ts";

export interface ExchangeProfile {
  id: string;
  name: string;
  isDefault: boolean;
  active: boolean;
  createdAt: string; // ISO
  /** Balances held by this profile, one per currency. */
  balances: Balance[];
}

export interface TransferRequest {
  fromProfileId: string;
  toProfileId: string;
  currency: string;
  amount: string;
}

export interface ProfilesProvider {
  /** "simulator" | "coinbase-exchange" */
  readonly name: string;
  listProfiles(): Promise<ExchangeProfile[]>;
  createProfile(name: string): Promise<ExchangeProfile>;
  transferFunds(request: TransferRequest): Promise<void>;
  /** Deactivates the profile after moving its funds to `toProfileId`. */
  deleteProfile(profileId: string, toProfileId: string): Promise<void>;
}

/** SPEC's report types; Coinbase's wire type for otc_fills is "otc-fills". */
export type ReportType = "fills" | "balance" | "account" | "otc_fills";
export type ReportFormat = "csv" | "pdf";
export type ReportStatus = "pending" | "creating" | "ready" | "failed";

export interface ReportRequest {
  type: ReportType;
  format: ReportFormat;
  startDate?: string | null; // ISO
  endDate?: string | null; // ISO
  profileId?: string | null;
  productId?: string | null;
  year?: string | null;
}

/** A report as a remote provider (Coinbase Exchange) knows it. */
export interface RemoteReport {
  id: string;
  type: ReportType;
  status: ReportStatus;
  createdAt: string | null;
  completedAt: string | null;
  expiresAt: string | null;
  fileUrl: string | null;
}

export interface RemoteReportsProvider {
  readonly name: string;
  createReport(request: ReportRequest): Promise<RemoteReport>;
  getReport(reportId: string): Promise<RemoteReport>;
  /** The file behind a ready report's fileUrl. */
  downloadReport(fileUrl: string): Promise<Uint8Array>;
}
