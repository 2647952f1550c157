// SPDX-License-Identifier: AGPL-3.0-or-later
#pragma once

#include <QString>
#include <optional>

namespace marquee {

/** @brief Who is calling: an enrolled device (kiosk, till) or a staff member's session (cashier, manager, admin). */
enum class Role { Kiosk, Till, Cashier, Manager, Admin };

QString toString(Role role);
std::optional<Role> roleFromString(const QString &text);
/** @brief True for the roles that belong to devices rather than people. */
inline bool isDeviceRole(Role role)
{
    return role == Role::Kiosk || role == Role::Till;
}

/** @brief A set of roles as a bit mask, for route permissions. */
using RoleMask = unsigned;
constexpr RoleMask roleBit(Role role)
{
    return 1u << static_cast<unsigned>(role);
}
constexpr RoleMask kAllRoles = roleBit(Role::Kiosk) | roleBit(Role::Till) | roleBit(Role::Cashier) | roleBit(Role::Manager)
    | roleBit(Role::Admin);
constexpr RoleMask kStaffRoles = roleBit(Role::Cashier) | roleBit(Role::Manager) | roleBit(Role::Admin);
constexpr RoleMask kManagerRoles = roleBit(Role::Manager) | roleBit(Role::Admin);

} // namespace marquee
