declare module "better-sqlite3/linux-x64" {
  import Database from "better-sqlite3";
  export default Database;
}
declare module "*.so" {
  const path: string;
  export default path;
}
