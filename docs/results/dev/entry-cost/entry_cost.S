/* Four ways into the same 33..64-byte copy (two 32-byte loads, two
 * stores), to price each piece of a dispatcher's entry path on its own;
 * see README.md. Every function falls back to memcpy outside 33..64. */
    .text
    .p2align 6
    .globl direct_entry
direct_entry:                  /* glibc's resolved entry: size checks only */
    mov %rdi,%rax
    cmp $32,%rdx
    jb 1f
    cmp $64,%rdx
    ja 1f
    vmovdqu (%rsi),%ymm0
    vmovdqu -32(%rsi,%rdx),%ymm1
    vmovdqu %ymm0,(%rdi)
    vmovdqu %ymm1,-32(%rdi,%rdx)
    vzeroupper
    ret
1:  jmp memcpy@PLT

    .p2align 6
    .globl checked_entry
checked_entry:                 /* + one load and compare (is the row still ours?) */
    mov %rdi,%rax
    cmp $32,%rdx
    jbe 1f
    lea table(%rip),%rcx
    cmp row(%rip),%rcx
    jne 1f
    cmp $64,%rdx
    ja 1f
    vmovdqu (%rsi),%ymm0
    vmovdqu -32(%rsi,%rdx),%ymm1
    vmovdqu %ymm0,(%rdi)
    vmovdqu %ymm1,-32(%rdi,%rdx)
    vzeroupper
    ret
1:  jmp memcpy@PLT

    .p2align 6
    .globl pointer_entry
pointer_entry:                 /* one load and an indirect jump (cachewise now) */
    cmp $32,%rdx
    jbe 1f
    jmp *entry(%rip)
1:  jmp memcpy@PLT

    .p2align 6
    .globl row_entry
row_entry:                     /* row load, test, indirect jump through the row */
    cmp $32,%rdx
    jbe 1f
    mov row(%rip),%rax
    test %rax,%rax
    je 1f
    jmp *(%rax)
1:  jmp memcpy@PLT

    .data
    .p2align 3
row:   .quad table
table: .quad direct_entry
entry: .quad direct_entry
    .section .note.GNU-stack,"",@progbits
