import type { License } from "@flotilla/contracts/licensing";
import { useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useCallback, useState } from "react";
import { useNavigate } from "react-router";
import { useAuth } from "../../lib/auth";
import { CreateLicenseDialog } from "../licenses/create-license-dialog";
import { LicenseList } from "../licenses/license-list";
import { ConnectionNotice, useConnectionProblem } from "../portal/connection-status";
import { dashboardErrorMessage, dashboardQueryKey, useDashboardQuery } from "./api";
import { DashboardHeader } from "./dashboard-header";
import { DashboardEmpty, DashboardError, DashboardLoading } from "./dashboard-states";
import { useLiveUpdates } from "./live-updates";
import { MonthlyUsage } from "./monthly-usage";
import { MostUsedFeatures } from "./most-used-features";
import { QuickActions } from "./quick-actions";
import { StatCards } from "./stat-cards";

/** The signed-in dashboard: header, figures, licenses and sidebar, in its loading/error/empty/loaded states. */
export function DashboardContent() {
  const { user, logout } = useAuth();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const dashboard = useDashboardQuery();
  const [createOpen, setCreateOpen] = useState(false);
  // The empty state's "Create Free License" goes away with the empty state: the new license's card takes focus.
  const [createdLicenseId, setCreatedLicenseId] = useState<string | null>(null);

  const refreshDashboard = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: dashboardQueryKey });
  }, [queryClient]);
  const openCreate = useCallback(() => setCreateOpen(true), []);
  const closeCreate = useCallback(() => setCreateOpen(false), []);
  const licenseCreated = useCallback(
    (license: License) => {
      setCreatedLicenseId(license.id);
      refreshDashboard();
    },
    [refreshDashboard],
  );

  const signOut = useCallback(() => {
    // logout() clears the token and user before its first await, so /login sees a signed-out visitor.
    void logout();
    navigate("/login");
  }, [logout, navigate]);
  // Devices, heartbeats and executions as they happen; on-demand refresh when the stream is unavailable.
  const live = useLiveUpdates();
  const connectionProblem = useConnectionProblem();

  const data = dashboard.data;
  let body: ReactNode;
  if (dashboard.isPending) {
    body = <DashboardLoading />;
  } else if (dashboard.isError) {
    body = (
      <DashboardError
        message={dashboardErrorMessage(dashboard.error)}
        retrying={dashboard.isFetching}
        onRetry={() => void dashboard.refetch()}
      />
    );
  } else if (!data) {
    body = <DashboardEmpty />;
  } else {
    body = (
      <div className="space-y-8">
        <StatCards data={data} />
        <div className="grid gap-8 lg:grid-cols-[minmax(0,1fr)_20rem]">
          <LicenseList
            licenses={data.licenses}
            onCreate={openCreate}
            onChanged={refreshDashboard}
            focusLicenseId={createdLicenseId}
          />
          <aside className="space-y-6" aria-label="Account overview">
            <QuickActions onCreateLicense={openCreate} hasLicense={data.licenses.length > 0} />
            <MonthlyUsage
              utilization={data.usage_analytics.license_utilization}
              monthExecutions={data.usage_analytics.current_month_executions}
              monthlyCapacity={data.usage_analytics.monthly_capacity}
            />
            <MostUsedFeatures features={data.usage_analytics.most_used_features} />
          </aside>
        </div>
      </div>
    );
  }

  return (
    <div className="mx-auto max-w-7xl px-4 py-8 sm:px-6 sm:py-10 lg:px-8">
      <DashboardHeader
        customer={data?.customer ?? user}
        refreshing={dashboard.isFetching}
        live={live}
        connectionProblem={connectionProblem}
        onRefresh={() => void queryClient.invalidateQueries()}
        onLogout={signOut}
      />
      <ConnectionNotice />
      <div className="mt-8">{body}</div>
      <CreateLicenseDialog open={createOpen} onClose={closeCreate} onCreated={licenseCreated} />
    </div>
  );
}
